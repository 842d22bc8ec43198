import ArgumentParser

/// Stub.
public struct HTMLCommand: ToolCommand {
    /// The command's name.
    public static let configuration = CommandConfiguration(commandName: "html")
    /// Creates the command.
    public init() {}
    func perform(console: Console) async throws -> ExitStatus { .clean }
}
