import ArgumentParser
import LeakGraph

/// Options every command that reads dumps shares.
package struct DumpOptions: ParsableArguments, Sendable {
    /// The largest dump file read.
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Refuse dump files larger than this (bytes, or with k, m, g: 512m, 2g).", valueName: "size"))
    package var maxSize: ByteCount = ByteCount(bytes: DumpLoader.defaultMaximumSize)

    /// Leaked cycles to show apart and never fail on, as loops with `*` wildcards.
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Show leaked cycles matching this loop apart and never fail on them (repeatable; write it as reports "
                + "do, `*` for any text: '* —testRun→ XCTestCaseRun —test→ *').", valueName: "pattern"))
    package var ignore: [String] = []

    /// A baseline file of accepted leaked-cycle signatures.
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Accept the leaked cycles whose signatures this file lists (one per line; `leakgraph baseline` writes "
                + "one from a dump).", valueName: "file"))
    package var baseline: String?

    /// Creates the defaults.
    package init() {}

    /// Refuses an ignore pattern that is not a loop.
    package func validate() throws {
        for pattern in ignore where LoopPattern(pattern) == nil {
            throw ValidationError(
                "--ignore \"\(pattern)\" is not a loop: write it as reports do, `Type —label→ Type —label→ Type` "
                    + "(or -label->), `*` for any text")
        }
    }

    /// A loader with these options, writing progress to `console`.
    package func loader(console: Console) -> DumpLoader {
        var loader = DumpLoader(maximumSize: maxSize.bytes, console: console)
        loader.knownLeaks = KnownLeakFilter(ignorePatterns: ignore, baselinePath: baseline)
        return loader
    }
}

/// Text for people or JSON for programs.
package enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// Human-readable text.
    case text
    /// JSON, keys sorted.
    case json
}
