// `import RxRelay`: RxSwift keeps its relays in a module of their own; LeakGraphRx has them beside
// the subjects. This module only re-exports it (see the RxSwift module).
@_exported import LeakGraphRx
