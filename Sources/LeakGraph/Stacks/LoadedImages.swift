import CLeakGraphSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which loaded image holds an address (code or a global), and where that image starts, for one
/// symbolication pass: the images' segments, paths and bases are read once from the loader's list
/// (`lg_image_segments`), and an address is found by a binary search. A `dladdr` per address was
/// most of a test process's symbolication: glibc's also looks for the nearest exported symbol,
/// scanning the image's whole symbol table (about a millisecond in a big test binary), and that
/// symbol is needed only for a frame the symbolizer cannot name (``exportedSymbol(at:)``).
struct LoadedImages {
    /// A loaded image.
    struct Image {
        /// Its file, as the loader knows it (the main program: the file `/proc/self/exe` names).
        let path: String
        /// Where it is mapped from: an address minus this is what the symbolizer is asked.
        let base: UInt
    }

    /// The segments, by start address.
    private let segments: [lg_image_segment]
    /// Each segment's image.
    private let images: [Image]

    /// The images loaded now (one read of the loader's list; an address outside them, in an
    /// image loaded later, is asked of `dladdr`). In a forked child the list is not read: the
    /// loader's list lock (`dl_iterate_phdr`) is not reset by `fork`, and another thread of the
    /// parent may have held it; every address is then asked of `dladdr`, whose lock `fork` resets.
    init() {
        guard lg_is_forked_child() == 0 else {
            segments = []
            images = []
            return
        }
        var segments = [lg_image_segment](repeating: lg_image_segment(), count: 128)
        while true {
            let count = segments.withUnsafeMutableBufferPointer { lg_image_segments($0.baseAddress, $0.count) }
            if count <= segments.count {
                segments.removeLast(segments.count - count)
                break
            }
            segments = [lg_image_segment](repeating: lg_image_segment(), count: count)
        }
        self.segments = segments.sorted { $0.start < $1.start }
        // Named right after the list was read (an image closed meanwhile would free its name: the
        // same moment's risk as using the name `dladdr` returns).
        var names: [UnsafePointer<CChar>: String] = [:]
        images = self.segments.map { segment in
            if segment.isMainProgram != 0, let executable = Self.executablePath {
                return Image(path: executable, base: segment.base)
            }
            // An image the loader lists without a name (the main program whose file is gone):
            // named as `dladdr` names it.
            if segment.path.pointee == 0 {
                return Image(path: Self.named(segment.start)?.path ?? "", base: segment.base)
            }
            let path = names[segment.path] ?? String(cString: segment.path)
            names[segment.path] = path
            return Image(path: path, base: segment.base)
        }
    }

    /// The image holding `address`, or nil when no loaded image does.
    func image(containing address: UInt) -> Image? {
        var low = 0
        var high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].start <= address { low = middle + 1 } else { high = middle }
        }
        let index = low - 1
        guard index >= 0, address < segments[index].end else { return Self.named(address) }
        return images[index]
    }

    /// The main program's file, from `/proc/self/exe` (the loader's list names it ""; `dladdr`
    /// says `argv[0]`, which is relative when the program was started so); nil when that is not
    /// known or the file was replaced since (`… (deleted)`: `dladdr` names it then, as before).
    private static let executablePath: String? = {
        var buffer = [CChar](repeating: 0, count: 4097)
        let length = readlink("/proc/self/exe", &buffer, 4096)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.hasSuffix(" (deleted)") ? nil : path
    }()

    /// The exported symbol `dladdr` finds nearest below `address`, or nil: the name of a frame
    /// the symbolizer could not name (a library without debug information).
    static func exportedSymbol(at address: UInt) -> String? {
        var path: UnsafePointer<CChar>?
        var base: UInt = 0
        var symbol: UnsafePointer<CChar>?
        var symbolAddress: UInt = 0
        guard lg_dladdr(address, &path, &base, &symbol, &symbolAddress) != 0, let symbol else { return nil }
        return String(cString: symbol)
    }

    /// The image `dladdr` finds for `address`, or nil.
    private static func named(_ address: UInt) -> Image? {
        var path: UnsafePointer<CChar>?
        var base: UInt = 0
        var symbol: UnsafePointer<CChar>?
        var symbolAddress: UInt = 0
        guard lg_dladdr(address, &path, &base, &symbol, &symbolAddress) != 0, let path else { return nil }
        return Image(path: String(cString: path), base: base)
    }
}
