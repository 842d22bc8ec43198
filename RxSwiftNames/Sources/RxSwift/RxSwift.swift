// `import RxSwift` in existing code: the module LeakGraph puts under RxSwift's name, so that code
// written against RxSwift builds against LeakGraphRx with only `Package.swift` changed. It holds
// nothing of its own: every name (and every `RxSwift.X` qualifier, which Swift resolves through
// re-exported modules) is LeakGraphRx's.
@_exported import LeakGraphRx
