/// A dump (or a leak baseline) that could not be read, with a one-line description:
/// `<path>: <problem>`.
public struct DumpError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What is wrong with it.
    public var problem: String

    /// Creates an error.
    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    /// `path: problem`.
    public var description: String { "\(path): \(problem)" }
}
