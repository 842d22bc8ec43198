import ArgumentParser

/// Options every command that reads dumps shares.
package struct DumpOptions: ParsableArguments, Sendable {
    /// The largest dump file read.
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Refuse dump files larger than this (bytes, or with k, m, g: 512m, 2g).", valueName: "size"))
    package var maxSize: ByteCount = ByteCount(bytes: DumpLoader.defaultMaximumSize)

    /// Creates the defaults.
    package init() {}

    /// A loader with these options, writing progress to `console`.
    package func loader(console: Console) -> DumpLoader {
        DumpLoader(maximumSize: maxSize.bytes, console: console)
    }
}

/// Text for people or JSON for programs.
package enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// Human-readable text.
    case text
    /// JSON, keys sorted.
    case json
}
