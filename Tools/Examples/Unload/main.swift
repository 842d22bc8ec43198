// unload-example: loads a Swift library, lets it make objects that outlive it, unloads it
// (`dlclose`), and exits — with the dump at exit on, the snapshot meets live objects whose type's
// code and metadata are gone.
//
//   unload-example LIBRARY      the library exports `make_object` (C calling convention), which
//                               returns a retained object of one of its classes
import Foundation

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: unload-example LIBRARY\n".utf8))
    exit(2)
}
guard let handle = dlopen(CommandLine.arguments[1], RTLD_NOW) else {
    FileHandle.standardError.write(Data("unload-example: \(String(cString: dlerror()))\n".utf8))
    exit(1)
}
guard let symbol = dlsym(handle, "make_object") else {
    FileHandle.standardError.write(Data("unload-example: no make_object in the library\n".utf8))
    exit(1)
}
let make = unsafeBitCast(symbol, to: (@convention(c) () -> UnsafeMutableRawPointer).self)
let made = (0..<3).map { _ in make() }
let unloaded = dlclose(handle) == 0
let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
print(
    "unload-example: made \(made.count) objects; library unloaded: \(unloaded && !maps.contains(CommandLine.arguments[1]))"
)
