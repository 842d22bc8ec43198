import Foundation
import LeakGraph

extension ObservableType {
    /// Prints every subscription, event and disposal with a timestamp and `identifier` (by
    /// default the file, line and function of the call), as RxSwift's `debug` does.
    ///
    /// ```swift
    /// results.debug("results").subscribe()
    /// // 2026-11-25 14:02:11.513: results -> subscribed
    /// // 2026-11-25 14:02:11.514: results -> Event next(1)
    /// ```
    public func debug(
        _ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line,
        function: String = #function
    ) -> Observable<Element> {
        let name = identifier ?? "\(file.split(separator: "/").last.map(String.init) ?? file):\(line) (\(function))"
        return Debug(source: asObservable(), identifier: name, trimOutput: trimOutput)
    }
}

/// Prints one `debug` line.
private func logDebugEvent(_ identifier: String, _ content: String) {
    print("\(DebugClock.timestamp()): \(identifier) -> \(content)")
}

/// RxSwift's `debug` timestamp, `yyyy-MM-dd HH:mm:ss.SSS` in local time.
private enum DebugClock {
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(now.tv_nsec / 1_000_000))
    }
}

private final class DebugSink<Observer: ObserverType>: Sink<Observer>, ObserverType {
    typealias Element = Observer.Element
    private let identifier: String
    private let trimOutput: Bool

    init(identifier: String, trimOutput: Bool, observer: Observer, cancel: Cancelable) {
        self.identifier = identifier
        self.trimOutput = trimOutput
        super.init(observer: observer, cancel: cancel)
        logDebugEvent(identifier, "subscribed")
    }

    func on(_ event: Event<Element>) {
        let maxLength = 40
        let text = "\(event)"
        let shown =
            trimOutput && text.count > maxLength
            ? String(text.prefix(maxLength / 2)) + "..." + String(text.suffix(maxLength / 2)) : text
        logDebugEvent(identifier, "Event \(shown)")
        if case .next = event { forwardOn(event) } else { forwardTerminalAndDispose(event) }
    }

    override func dispose() {
        if !isDisposed { logDebugEvent(identifier, "isDisposed") }
        super.dispose()
    }
}

private final class Debug<Element>: Producer<Element> {
    private let source: Observable<Element>
    private let identifier: String
    private let trimOutput: Bool

    init(source: Observable<Element>, identifier: String, trimOutput: Bool) {
        self.source = source
        self.identifier = identifier
        self.trimOutput = trimOutput
        super.init()
        addTrackedEdge(to: source, label: .source)
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (
        sink: Disposable, subscription: Disposable
    ) where Observer.Element == Element {
        let sink = DebugSink(identifier: identifier, trimOutput: trimOutput, observer: observer, cancel: cancel)
        return (sink, source.subscribe(sink))
    }
}
