import ArgumentParser

/// Stub.
public struct DiffCommand: ToolCommand {
    /// The command's name.
    public static let configuration = CommandConfiguration(commandName: "diff")
    /// Creates the command.
    public init() {}
    func perform(console: Console) async throws -> ExitStatus { .clean }
}
