import ArgumentParser

/// Stub.
public struct RenderCommand: ToolCommand {
    /// The command's name.
    public static let configuration = CommandConfiguration(commandName: "render")
    /// Creates the command.
    public init() {}
    func perform(console: Console) async throws -> ExitStatus { .clean }
}
