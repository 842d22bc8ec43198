import ArgumentParser

/// Stub.
public struct RunCommand: ToolCommand {
    /// The command's name.
    public static let configuration = CommandConfiguration(commandName: "run")
    /// Creates the command.
    public init() {}
    func perform(console: Console) async throws -> ExitStatus { .clean }
}
