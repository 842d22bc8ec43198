import Foundation
import Testing

/// The learned frame rules a process writes at exit for the next run (see frame_rule_cache.c).
@Suite("Frame rule cache across processes")
struct FrameRuleCacheProcessTests {
    @Test(
        "a tracked program leaves its rules in LEAKGRAPH_CACHE_DIR; the next run reads them and leaves no temporary; a run that learns nothing rewrites nothing"
    )
    func rulesKeptForTheNextRun() throws {
        let example = try builtExample("plain-classes-example")
        let directory = makeTemporaryDirectory("frame-rule-cache")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = Self.trackedEnvironment(cacheDirectory: directory + "/cache")
        let first = try runExecutable(example, environment: environment)
        #expect(first.status == 0 && !first.crashed, "\(first.errors)")
        let rules = directory + "/cache/frame-rules"
        let written = (try? FileManager.default.contentsOfDirectory(atPath: rules)) ?? []
        #expect(!written.isEmpty && written.allSatisfy { $0.hasSuffix(".rules") }, "\(written)")
        let second = try runExecutable(example, environment: environment)
        #expect(second.status == 0 && !second.crashed, "\(second.errors)")
        #expect(second.output == first.output)
        let after = (try? FileManager.default.contentsOfDirectory(atPath: rules)) ?? []
        #expect(Set(after) == Set(written), "\(after)")
        // A file is written whole under a temporary name and renamed over the old one: the same
        // file number after a run means it was not written again.
        func fileNumbers() -> [String: Int] {
            Dictionary(
                uniqueKeysWithValues: after.map { name in
                    let attributes = try? FileManager.default.attributesOfItem(atPath: rules + "/" + name)
                    return (name, (attributes?[.systemFileNumber] as? NSNumber)?.intValue ?? -1)
                })
        }
        let before = fileNumbers()
        #expect(!before.isEmpty && before.values.allSatisfy { $0 > 0 }, "file numbers read: \(before)")
        let third = try runExecutable(example, environment: environment)
        #expect(third.status == 0 && !third.crashed, "\(third.errors)")
        #expect(fileNumbers() == before)
    }

    @Test("LEAKGRAPH_CACHE_DIR=off keeps nothing, not even in the home folder")
    func off() throws {
        let example = try builtExample("plain-classes-example")
        let directory = makeTemporaryDirectory("frame-rule-cache-off")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = Self.trackedEnvironment(cacheDirectory: "off")
        environment["HOME"] = directory
        environment["XDG_CACHE_HOME"] = nil
        let run = try runExecutable(example, environment: environment)
        #expect(run.status == 0 && !run.crashed, "\(run.errors)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).isEmpty)
    }

    /// This process's environment with whole-process tracking, no dump, and `cacheDirectory` as
    /// LEAKGRAPH_CACHE_DIR.
    private static func trackedEnvironment(cacheDirectory: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_TRACK"] = "all"
        environment["LEAKGRAPH_CACHE_DIR"] = cacheDirectory
        environment["LEAKGRAPH_DUMP_DIR"] = nil
        return environment
    }
}
