import Foundation
import LeakGraph
import Testing

@Suite("SafeFileWriter")
final class FileWriterTests {
    private let directory: String = {
        let path = NSTemporaryDirectory() + "leakgraph-filewriter-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    // A class suite: one instance per test, and its folder goes with it (most tests write nothing there).
    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @Test("pieces written on the writer thread arrive whole and in order, whatever their sizes")
    func overlappedWritesInOrder() throws {
        let path = directory + "/pieces.bin"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Sizes that make the three buffers grow, shrink back and wrap around many times.
        let sizes = (0..<60).map { [1, 4096, 5 << 20, 17, 300_000][$0 % 5] + $0 }
        var expected: [UInt8] = []
        try SafeFileWriter.write(to: path, overlapped: true) { output in
            for (index, size) in sizes.enumerated() {
                let piece = [UInt8](repeating: UInt8(truncatingIfNeeded: index &* 31 &+ 7), count: size)
                expected += piece
                piece.withUnsafeBytes { output.write($0) }
            }
        }
        let written = try #require(FileManager.default.contents(atPath: path))
        #expect(written.count == expected.count)
        #expect([UInt8](written) == expected)
    }

    @Test("a failed write on the writer thread is thrown, not lost")
    func overlappedFailureIsThrown() {
        #expect(throws: SafeFileWriter.Failure.self) {
            try SafeFileWriter.write(to: "/dev/full", replace: true, overlapped: true) { output in
                let piece = [UInt8](repeating: 1, count: 1 << 20)
                for _ in 0..<8 { piece.withUnsafeBytes { output.write($0) } }
            }
        }
    }
}
