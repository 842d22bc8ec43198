import CLeakGraphSupport
import Foundation
import Testing

/// The learned frame rules kept across runs: what one process writes, the next reads back as the
/// same rules, and a file that is not whole or not rules is refused whole.
@Suite("Frame rule cache")
struct FrameRuleCacheTests {
    @Test("the rules written for the loaded images are read back the same")
    func roundTrip() throws {
        guard lg_learned_frame_rules() == 1 else { return }
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let written = rulesWritten(to: directory)
        #expect(written > 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(!files.isEmpty && files.allSatisfy { $0.hasSuffix(".rules") }, "\(files)")
        #expect(lg_frame_rule_cache_disagreements(directory) == 0)
        var refused = 0
        let read = lg_frame_rule_cache_read(directory, &refused)
        #expect(refused == 0)
        #expect(read == written)
    }

    @Test("a file cut short, or holding a word that is not a rule, is refused whole")
    func damagedFilesAreRefused() throws {
        guard lg_learned_frame_rules() == 1 else { return }
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(rulesWritten(to: directory) > 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).map { directory + "/" + $0 }
        let largest = try #require(
            files.max {
                (try? Data(contentsOf: URL(fileURLWithPath: $0)).count) ?? 0
                    < (try? Data(contentsOf: URL(fileURLWithPath: $1)).count) ?? 0
            })
        let original = try Data(contentsOf: URL(fileURLWithPath: largest))
        // The header is 88 bytes, then 16-byte entries (offset, rule).
        try #require(original.count >= 88 + 16)

        try original.dropLast(8).write(to: URL(fileURLWithPath: largest))
        var refused = 0
        _ = lg_frame_rule_cache_read(directory, &refused)
        #expect(refused == 1)

        var notARule = original
        notARule.replaceSubrange(88 + 8..<88 + 16, with: [UInt8](repeating: 0xFF, count: 8))
        try notARule.write(to: URL(fileURLWithPath: largest))
        _ = lg_frame_rule_cache_read(directory, &refused)
        #expect(refused == 1)

        var outsideTheCode = original
        outsideTheCode.replaceSubrange(88..<88 + 8, with: [UInt8](repeating: 0x7F, count: 8))
        try outsideTheCode.write(to: URL(fileURLWithPath: largest))
        _ = lg_frame_rule_cache_read(directory, &refused)
        #expect(refused == 1)

        try original.write(to: URL(fileURLWithPath: largest))
        _ = lg_frame_rule_cache_read(directory, &refused)
        #expect(refused == 0)
    }

    @Test("a directory that cannot be made writes nothing and says so")
    func unwritableDirectory() {
        guard lg_learned_frame_rules() == 1 else { return }
        #expect(lg_frame_rule_cache_write("/proc/self/no-such-directory") == -1)
    }

    /// Captures a stack (so this thread's frames have rules) and writes the table into
    /// `directory`: the rules written.
    private func rulesWritten(to directory: String) -> Int {
        var frames = [UInt](repeating: 0, count: 16)
        #expect(lg_capture_stack(&frames, 16, 0) > 0)
        return lg_frame_rule_cache_write(directory)
    }

    private func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "frame-rules-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
