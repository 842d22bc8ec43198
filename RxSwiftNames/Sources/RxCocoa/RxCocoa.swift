// `import RxCocoa`: RxCocoa's platform-free part — Driver, Signal, SharedSequence, SharingScheduler,
// drive, emit, bind(to:) — which is LeakGraphRxCocoa, under RxCocoa's name (see the RxSwift module).
@_exported import LeakGraphRx
@_exported import LeakGraphRxCocoa
