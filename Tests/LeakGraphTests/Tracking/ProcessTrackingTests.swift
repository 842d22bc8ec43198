import Foundation
import LeakGraph
import LeakGraphDump
import Testing

/// Runs the `plain-classes-example` program (plain classes that know nothing about LeakGraph)
/// in a process of its own, with whole-process tracking, through the dump at exit.
@Suite("Whole-process tracking")
struct ProcessTrackingTests {
    static let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("plain-classes-example").path

    struct Run {
        var status: Int32
        var errors: String
        var dump: LeakGraphDump?
    }

    static func run(_ arguments: [String] = [], environment extra: [String: String]) throws -> Run {
        let directory = NSTemporaryDirectory() + "leakgraph-process-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_TRACK"] = nil
        environment["LEAKGRAPH_DUMP_DIR"] = directory
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let dump = try files.first { $0.hasSuffix(".json") }.map { try LeakGraphDump(contentsOf: directory + "/" + $0) }
        return Run(status: process.terminationStatus, errors: String(decoding: data, as: UTF8.self), dump: dump)
    }

    /// The leaked cycles' signatures, and a check of the verdicts every run must give.
    static func checkVerdicts(_ dump: LeakGraphDump) {
        let leaked = dump.cycles.filter(\.leaked)
        func leakedCycle(with types: [String]) -> Cycle? {
            leaked.first { cycle in
                let members = cycle.objects.compactMap { id in dump.snapshot.objects.first { $0.id == id }?.type }
                return types.allSatisfy(members.contains) && members.count == types.count
            }
        }
        func labels(of cycle: Cycle) -> Set<String> { Set(cycle.path.map(\.label)) }

        let pair = leakedCycle(with: ["Parent", "Child"])
        #expect(pair.map(labels) == ["child", "parent"], "the plain Parent ⇄ Child cycle, with field names")
        let document = leakedCycle(with: ["Document", "Section"])
        #expect(document.map(labels) == ["index[\"intro\"]", "document"], "the cycle through a dictionary")
        let selfCapture = leakedCycle(with: ["ViewModel"])
        #expect(selfCapture.map(labels) == ["capture"], "a closure whose only capture is self, stored on self")
        let context = leaked.first { cycle in
            cycle.objects.contains { id in
                dump.snapshot.objects.first { $0.id == id }?.type.hasPrefix("context of") ?? false
            }
        }
        #expect(context.map(labels) == ["onChange", "capture"], "a closure context of its own, named after it")
        #expect(leaked.count == 4, "no other leaked cycle: \(leaked.map(\.loopDescription))")

        let retained = dump.cycles.filter { !$0.leaked }
        #expect(
            retained.contains { cycle in
                Set(cycle.objects.compactMap { id in dump.snapshot.objects.first { $0.id == id }?.type })
                    == ["Parent", "Child"]
            }, "the cycle a global holds is retained")
        // The `[weak self]` view model died: only the two leaked ones are alive.
        #expect(dump.snapshot.objects.filter { $0.type == "ViewModel" }.count == 2)
        // LeakGraph's own objects are not the program's.
        #expect(
            !dump.snapshot.objects.contains {
                $0.type.hasPrefix("LockStorage") || $0.type.hasPrefix("Locked<") || $0.type == "Registry"
            })
    }

    @Test("LEAKGRAPH_TRACK=all names every leaked cycle of plain classes, with field labels, before main")
    func fromEnvironment() throws {
        let run = try Self.run(environment: ["LEAKGRAPH_TRACK": "all"])
        #expect(run.status == 0, "\(run.errors)")
        let dump = try #require(run.dump, "a dump was written: \(run.errors)")
        Self.checkVerdicts(dump)
        #expect(run.errors.contains("4 leaked cycle(s)"))
        // Allocation stacks name the user's lines.
        let parent = try #require(dump.snapshot.objects.first { $0.type == "Parent" })
        let stack = try #require(parent.stack.map { dump.snapshot.stacks[$0] })
        #expect(stack.frames.contains { $0.contains("main.swift") })
        // A closure whose only capture is `self` is stored with a thunk at no line of source: it
        // is named at the closure's own line (`bindStrongly()`'s), where the fix goes.
        let selfCapture = try #require(dump.snapshot.edges.first { $0.label == "capture" && $0.from == $0.to })
        #expect(
            selfCapture.closure?.hasSuffix("PlainClasses/main.swift:39") == true, "\(selfCapture.closure ?? "unnamed")")
    }

    @Test("closures made again and again at a dozen lines of one function each get their own line's stack")
    func manyAllocationSites() throws {
        let run = try Self.run(["--many-sites"], environment: ["LEAKGRAPH_TRACK": "all", "LEAKGRAPH_DUMP": "full"])
        #expect(run.status == 0, "\(run.errors)")
        let dump = try #require(run.dump, "a dump was written: \(run.errors)")
        let markers = dump.snapshot.objects.filter { object in
            object.type == "closure context"
                && (dump.snapshot.stack(object.stack)?.frames.first?.contains("allocateAtManySites") ?? false)
        }
        #expect(markers.count == 72)
        // Six calls of twelve lines: twelve stacks, six objects each, each naming its own line.
        let byStack = Dictionary(grouping: markers) { $0.stack ?? -1 }
        #expect(byStack.count == 12 && byStack.values.allSatisfy { $0.count == 6 }, "\(byStack.mapValues(\.count))")
        let lines = Set(
            byStack.keys.compactMap { id in
                dump.snapshot.stack(id)?.frames.first { $0.contains("allocateAtManySites") }
            })
        #expect(lines.count == 12, "\(lines)")
    }

    @Test("LeakGraph.trackAllObjects() from code sees what is allocated after it")
    func fromCode() throws {
        let run = try Self.run(["--track-from-code"], environment: ["LEAKGRAPH_STACKS": "off"])
        #expect(run.status == 0, "\(run.errors)")
        let dump = try #require(run.dump, "a dump was written: \(run.errors)")
        Self.checkVerdicts(dump)
    }

    @Test("without whole-process tracking plain classes are invisible (the checks above can fail)")
    func offByDefault() throws {
        let run = try Self.run(environment: [:])
        #expect(run.status == 0, "\(run.errors)")
        // The program never calls LeakGraph: nothing is tracked, and LEAKGRAPH_DUMP_DIR still
        // writes its dump, empty (no dump would read as "LeakGraph is not linked in").
        let dump = try #require(run.dump, "a dump was written: \(run.errors)")
        #expect(dump.snapshot.objects.isEmpty)
        #expect(dump.report.leakedCycles.isEmpty)
        #expect(dump.summary?.trackingOff == false)
    }

    @Test("LEAKGRAPH=off wins over LEAKGRAPH_TRACK=all")
    func masterSwitchWins() throws {
        let run = try Self.run(environment: ["LEAKGRAPH_TRACK": "all", "LEAKGRAPH": "off"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.dump.map { $0.snapshot.objects.isEmpty } ?? true)
    }
}
