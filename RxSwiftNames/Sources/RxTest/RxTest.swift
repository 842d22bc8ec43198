// `import RxTest`: LeakGraphRxTest under RxTest's name (see the RxSwift module).
@_exported import LeakGraphRx
@_exported import LeakGraphRxTest
