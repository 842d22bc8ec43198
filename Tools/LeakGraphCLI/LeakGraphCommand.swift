import ArgumentParser

/// The `leakgraph` command-line tool.
public struct LeakGraphCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "leakgraph",
        abstract: "Report, render, compare and explore LeakGraph dumps."
    )

    public init() {}
}
