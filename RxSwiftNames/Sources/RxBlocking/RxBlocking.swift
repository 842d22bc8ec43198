// `import RxBlocking`: LeakGraphRxBlocking under RxBlocking's name (see the RxSwift module).
@_exported import LeakGraphRx
@_exported import LeakGraphRxBlocking
