import LeakGraph

final class Screen: TrackedObject {
    @StrongRef var presenter: Presenter?
}

final class Presenter: TrackedObject {
    @StrongRef var screen: Screen?
    @WeakRef var weakScreen: Screen?
}

/// Leaks a Screen <-> Presenter cycle.
@inline(never)
func plantLeak() {
    let screen = Screen()
    let presenter = Presenter()
    screen.presenter = presenter
    presenter.screen = screen
}

/// The fixed version: the back reference is weak.
@inline(never)
func noLeak() {
    let screen = Screen()
    let presenter = Presenter()
    screen.presenter = presenter
    presenter.weakScreen = screen
}
