import CLeakGraphSupport
import Foundation

/// The threads' stacks that hold objects: what a leak description names for the holders the graph
/// does not show when a running function keeps the object in a local (`held from outside: 1
/// reference … (held by a local in testCache() at CacheTests.swift:21)`).
///
/// The live part of every stack is compared word by word with the objects' addresses
/// (`lg_find_stack_holders`, through fault-safe copies): the calling thread's frames, each hit
/// named after the frame whose slots hold it; every other thread blocked in the kernel from its
/// stack pointer up, named after the thread. LeakGraph's own frames, and threads inside its
/// analysis, are left out (they hold the addresses while they look). A stale slot that still equals an address would name a
/// wrong holder, never change a verdict: this only adds names.
enum StackHolders {
    /// The most stack words named in one description (at most 4 for any one object).
    static let capacity = 4096
    /// The most frames of the calling thread read.
    static let frameCapacity = 512

    /// For each of `addresses` held by a thread's stack, the holders' names (`a local in
    /// testCache() at CacheTests.swift:21`, `the stack of thread 'poller' (tid 4242)`).
    static func names(holding addresses: [UInt]) -> [UInt: [String]] {
        let targets = Array(Set(addresses)).sorted()
        guard !targets.isEmpty else { return [:] }
        let (frames, stackPointers, ranges) = callingFrames()
        var slots = [UInt](repeating: 0, count: capacity)
        var found = [UInt](repeating: 0, count: capacity)
        var threads = [Int64](repeating: 0, count: capacity)
        let count = lg_find_stack_holders(
            targets, targets.count, ranges, ranges.count / 2, &slots, &found, &threads, capacity)
        guard count > 0 else { return [:] }

        var result: [UInt: [String]] = [:]
        for index in 0..<count {
            let name =
                threads[index] == 0
                ? frameName(holding: slots[index], frames: frames, stackPointers: stackPointers[...])
                : threadName(Int(threads[index]))
            guard let name, !(result[found[index]]?.contains(name) ?? false) else { continue }
            result[found[index], default: []].append(name)
        }
        return result
    }

    /// Which of `addresses` the stacks hold, without naming the holders: inside an analysis the
    /// calling thread's part is its callers' frames, found without symbolizing (the frames above
    /// the one that entered the analysis); outside one, the frames that are not LeakGraph's.
    static func held(_ addresses: [UInt]) -> Set<UInt> {
        let targets = Array(Set(addresses)).sorted()
        guard !targets.isEmpty else { return [] }
        let ranges = callersRanges()
        var slots = [UInt](repeating: 0, count: capacity)
        var found = [UInt](repeating: 0, count: capacity)
        var threads = [Int64](repeating: 0, count: capacity)
        let count = lg_find_stack_holders(
            targets, targets.count, ranges, ranges.count / 2, &slots, &found, &threads, capacity)
        return Set(found[..<count])
    }

    /// The words of the same stacks as ``held(_:)`` reads that may point at heap objects (see
    /// `lg_collect_stack_words`), up to `capacity`.
    static func words(capacity: Int) -> [UInt] {
        let ranges = callersRanges()
        var words = [UInt](repeating: 0, count: capacity)
        let count = lg_collect_stack_words(ranges, ranges.count / 2, &words, capacity)
        return Array(words[..<count])
    }

    /// The calling thread's stack to read as the program's: above the analysis when inside one.
    private static func callersRanges() -> [UInt] {
        var low: UInt = 0
        var high: UInt = 0
        if lg_analysis_callers_stack(&low, &high) != 0 { return [low, high] }
        return callingFrames().ranges
    }

    /// The calling thread's frames, innermost first, their stack pointers, and the ranges of its
    /// stack to read: the frames that are not LeakGraph's own (they hold the addresses while they
    /// look), frame `i` owning the words from its stack pointer up to its caller's.
    private static func callingFrames() -> (frames: [Symbolicator.Frame], stackPointers: [UInt], ranges: [UInt]) {
        var returnAddresses = [UInt](repeating: 0, count: frameCapacity)
        var stackPointers = [UInt](repeating: 0, count: frameCapacity)
        let frameCount = Int(lg_current_frames(&returnAddresses, &stackPointers, Int32(frameCapacity)))
        let frames = frameCount > 0 ? Symbolicator.frames(for: Array(returnAddresses[..<frameCount])) : []
        var ranges: [UInt] = []
        for index in frames.indices.dropLast() where !frames[index].isLeakGraph && frames[index].function != nil {
            if let high = ranges.last, high == stackPointers[index] {
                ranges[ranges.count - 1] = stackPointers[index + 1]
            } else {
                ranges += [stackPointers[index], stackPointers[index + 1]]
            }
        }
        return (frames, Array(stackPointers[..<max(0, frameCount)]), ranges)
    }

    /// `a local in testCache() at CacheTests.swift:21`: the frame whose slots hold `slot`; nil
    /// past the outermost frame read.
    private static func frameName(
        holding slot: UInt, frames: [Symbolicator.Frame], stackPointers: ArraySlice<UInt>
    ) -> String? {
        guard let owner = stackPointers.indices.last(where: { stackPointers[$0] <= slot }),
            owner + 1 < stackPointers.endIndex
        else { return nil }
        return "a local in \(frames[owner].description)"
    }

    /// `the stack of thread 'poller' (tid 4242)`, from the thread's name in /proc.
    private static func threadName(_ tid: Int) -> String {
        let comm = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8)
        let name = comm?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return name.isEmpty ? "the stack of thread \(tid)" : "the stack of thread '\(name)' (tid \(tid))"
    }
}
