import LeakGraph

/// A sink that forwards every event unchanged (a terminal one also disposes): for operators whose
/// work is all in how they subscribe (`delaySubscription`, a group of `groupBy`, a window).
final class PassThroughSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    func on(_ event: Event<Observer.Element>) {
        if case .next = event { forwardOn(event) } else { forwardTerminalAndDispose(event) }
    }
}
