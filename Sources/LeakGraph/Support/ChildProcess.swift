import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a helper tool (`llvm-symbolizer`, `swift-demangle`) as a child process, feeding it input
/// and reading its output with `poll`, under a deadline.
///
/// Not Foundation's `Process` with Dispatch: a child forked from a process that used Dispatch
/// has none of its worker threads, and the dump it writes at exit waited forever for a queue
/// that would never run (2 of 20 forked children that called `exit` hung). This uses only
/// `posix_spawn`, pipes and `poll`, which work in any process.
enum ChildProcess {
    /// What the tool printed on its standard output, or nil when it could not be started, did
    /// not exit with status 0, or ran past `deadline` seconds (it is then killed).
    static func run(_ path: String, arguments: [String], input: [UInt8]?, deadline: TimeInterval) -> [UInt8]? {
        guard var child = spawn(path, arguments: arguments, withInput: input != nil) else { return nil }
        let output = withSIGPIPEBlocked {
            exchange(input: input, to: &child.input, from: child.output, deadline: Date() + deadline)
        }
        if output == nil { kill(child.pid, SIGKILL) }
        let status = child.wait()
        // Exited normally with status 0 (the wait status's low byte 0, the exit code above it).
        guard let output, status & 0x7F == 0, (status >> 8) & 0xFF == 0 else { return nil }
        return output
    }

    /// A started tool: its process and this process's ends of its standard input and output
    /// (not blocking; -1 once closed).
    struct Spawned {
        let pid: pid_t
        var input: Int32
        var output: Int32

        /// Closes this process's ends and waits for the tool to exit; its wait status.
        mutating func wait() -> Int32 {
            for descriptor in [input, output] where descriptor >= 0 { close(descriptor) }
            input = -1
            output = -1
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return status
        }
    }

    /// Starts `path` with its standard output on a pipe, its standard input on a pipe too when
    /// `withInput` (else `/dev/null`), its standard error on `/dev/null`; nil when it cannot.
    static func spawn(_ path: String, arguments: [String], withInput: Bool) -> Spawned? {
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        guard makePipe(&outputPipe) else { return nil }
        if withInput {
            guard makePipe(&inputPipe) else {
                closeAll(outputPipe)
                return nil
            }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if withInput {
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        // The child has its ends: ours of them are closed, so that end-of-file arrives when it exits.
        defer {
            closeAll([outputPipe[1], inputPipe[0]])
        }
        guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else {
            closeAll([outputPipe[0], inputPipe[1]])
            return nil
        }
        setNonBlocking(outputPipe[0])
        if withInput { setNonBlocking(inputPipe[1]) }
        return Spawned(pid: pid, input: inputPipe[1], output: outputPipe[0])
    }

    /// Runs `body` with SIGPIPE blocked on this thread, a pending one taken back afterwards: a
    /// tool that exits without reading all its input must not kill this process.
    static func withSIGPIPEBlocked<Result>(_ body: () -> Result) -> Result {
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 && sigismember(&previous, SIGPIPE) == 0 {
                var signal: Int32 = 0
                sigwait(&blocked, &signal)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return body()
    }

    /// Writes `input` and reads the output until end-of-file; nil past the deadline. Call with
    /// SIGPIPE blocked (``withSIGPIPEBlocked(_:)``).
    private static func exchange(
        input: [UInt8]?, to inputDescriptor: inout Int32, from outputDescriptor: Int32, deadline: Date
    ) -> [UInt8]? {
        var output: [UInt8] = []
        var written = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        if input?.isEmpty ?? false, inputDescriptor >= 0 {
            close(inputDescriptor)
            inputDescriptor = -1
        }
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var descriptors = [pollfd(fd: outputDescriptor, events: Int16(POLLIN), revents: 0)]
            if inputDescriptor >= 0 {
                descriptors.append(pollfd(fd: inputDescriptor, events: Int16(POLLOUT), revents: 0))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if descriptors.count > 1, descriptors[1].revents != 0, let input {
                let count = input[written...].withUnsafeBytes { bytes in
                    write(inputDescriptor, bytes.baseAddress, min(bytes.count, 65536))
                }
                if count > 0 { written += count }
                if count < 0 && errno != EAGAIN && errno != EINTR || written == input.count {
                    close(inputDescriptor)
                    inputDescriptor = -1
                }
            }
            if descriptors[0].revents != 0 {
                let count = read(outputDescriptor, &buffer, buffer.count)
                if count > 0 {
                    output.append(contentsOf: buffer[..<count])
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    return output
                }
            }
        }
    }

    /// A pipe whose ends are not inherited past `exec` (the child gets its end through dup2).
    private static func makePipe(_ descriptors: inout [Int32]) -> Bool {
        var made: [Int32] = [-1, -1]
        guard pipe(&made) == 0 else { return false }
        for descriptor in made { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        descriptors = made
        return true
    }

    /// Makes `descriptor` (one of this process's ends, never the child's: the flag is shared by
    /// both ends' descriptions only when dup'ed, and the tool must read and write blocking) not
    /// block.
    static func setNonBlocking(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    static func closeAll(_ descriptors: [Int32]) {
        for descriptor in descriptors where descriptor >= 0 { close(descriptor) }
    }
}
