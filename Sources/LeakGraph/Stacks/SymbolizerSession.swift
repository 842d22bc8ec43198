import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One `llvm-symbolizer` kept running across the lookups of a job (a dump, a failed check),
/// asked one line per address — `CODE "image" 0xoffset` or `DATA "image" 0xoffset` — and
/// answering one JSON line each, for any image.
///
/// Why: a tool started per batch cost 50–80 ms before its first answer (it loads LLVM's own
/// libraries, then the image's symbols and debug info), and the dump at exit of a small program
/// asked seven to nine batches of the same executable (allocation stacks, closures, the
/// declarations of fields, globals): about 0.5 s of a tiny test process's exit. One process keeps
/// every image it has read loaded between asks, as the sanitizers' runtimes keep theirs.
struct SymbolizerSession {
    private var child: ChildProcess.Spawned
    /// The process that started the tool: a forked child never writes to its parent's.
    let owner: pid_t
    /// Bytes of an answer line not complete yet.
    private var partial: [UInt8] = []

    /// Starts `path` (an `llvm-symbolizer`) with `arguments`; nil when it cannot be started.
    init?(path: String, arguments: [String]) {
        guard let child = ChildProcess.spawn(path, arguments: arguments, withInput: true) else { return nil }
        self.child = child
        owner = getpid()
    }

    /// The tool's process.
    var processID: pid_t { child.pid }

    /// Whether a request for `image` can be written on one line (a path with a quote or a line
    /// break cannot).
    static func canName(_ image: String) -> Bool {
        !image.contains("\"") && !image.contains("\n") && !image.contains("\r")
    }

    /// Sends `requests` (one line each, without its line break) and returns one answer line per
    /// request; nil when the tool died, stopped answering before `deadline` or could not be
    /// written to (the session is then unusable: ``end()`` it).
    mutating func ask(_ requests: [String], deadline: Date) -> [Substring]? {
        guard !requests.isEmpty else { return [] }
        guard child.input >= 0, child.output >= 0 else { return nil }
        let input = Array((requests.joined(separator: "\n") + "\n").utf8)
        return ChildProcess.withSIGPIPEBlocked { () -> [Substring]? in
            var written = 0
            var answers: [Substring] = []
            answers.reserveCapacity(requests.count)
            var buffer = [UInt8](repeating: 0, count: 65536)
            while answers.count < requests.count {
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else { return nil }
                // Written and read together: a big request must not fill both pipes at once.
                var descriptors = [pollfd(fd: child.output, events: Int16(POLLIN), revents: 0)]
                if written < input.count {
                    descriptors.append(pollfd(fd: child.input, events: Int16(POLLOUT), revents: 0))
                }
                let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(min(remaining, 1) * 1000) + 1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    return nil
                }
                if descriptors.count > 1, descriptors[1].revents != 0 {
                    let count = input[written...].withUnsafeBytes { bytes in
                        write(child.input, bytes.baseAddress, min(bytes.count, 65536))
                    }
                    if count > 0 {
                        written += count
                    } else if count < 0 && errno != EAGAIN && errno != EINTR {
                        return nil
                    }
                }
                guard descriptors[0].revents != 0 else { continue }
                let count = read(child.output, &buffer, buffer.count)
                if count == 0 { return nil }  // The tool exited.
                if count < 0 {
                    if errno == EAGAIN || errno == EINTR { continue }
                    return nil
                }
                var start = 0
                for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                    partial += buffer[start..<index]
                    let line = String(decoding: partial, as: UTF8.self)
                    partial.removeAll(keepingCapacity: true)
                    start = index + 1
                    // An empty line is no answer (the JSON style never prints one).
                    if !line.isEmpty { answers.append(Substring(line)) }
                }
                partial += buffer[start..<count]
            }
            return answers
        }
    }

    /// Ends the tool: its input closed (it exits at end-of-file), then waited for briefly and
    /// killed if it has not exited. In a forked child, only this process's copies of the
    /// descriptors are closed: the tool is the parent's.
    mutating func end() {
        guard owner == getpid() else {
            ChildProcess.closeAll([child.input, child.output])
            child.input = -1
            child.output = -1
            return
        }
        if child.input >= 0 { close(child.input) }
        child.input = -1
        var status: Int32 = 0
        for _ in 0..<100 {
            let result = waitpid(child.pid, &status, WNOHANG)
            if result == child.pid || (result < 0 && errno != EINTR) {
                ChildProcess.closeAll([child.output])
                child.output = -1
                return
            }
            usleep(2000)
        }
        kill(child.pid, SIGKILL)
        _ = child.wait()
    }
}
