import CLeakGraphSupport

/// Which loaded image holds an address (code or a global), and where that image starts, for one
/// symbolication pass: the images' segments are read once (`lg_image_segments`), an address is
/// found by a binary search, and each image is named by one `dladdr` the first time an address in
/// it is asked for. A `dladdr` per address was most of a test process's symbolication: glibc's
/// also looks for the nearest exported symbol, scanning the image's whole symbol table (about a
/// millisecond in a big test binary), and that symbol is needed only for a frame the symbolizer
/// cannot name (``exportedSymbol(at:)``).
struct LoadedImages {
    /// A loaded image as `dladdr` names it.
    struct Image {
        /// Its file, as the loader knows it.
        let path: String
        /// Where it is loaded: an address minus this is what the symbolizer is asked.
        let base: UInt
    }

    /// The segments, by start address.
    private let segments: [lg_image_segment]
    /// Each segment's image once named: nil not yet asked, `.some(nil)` when `dladdr` knew none.
    private var images: [Image??]

    /// The images loaded now (one read of the loader's list; an image loaded later is found by
    /// `dladdr` alone).
    init() {
        var segments = [lg_image_segment](repeating: lg_image_segment(), count: 64)
        while true {
            let count = segments.withUnsafeMutableBufferPointer { lg_image_segments($0.baseAddress, $0.count) }
            if count <= segments.count {
                segments.removeLast(segments.count - count)
                break
            }
            segments = [lg_image_segment](repeating: lg_image_segment(), count: count)
        }
        self.segments = segments.sorted { $0.start < $1.start }
        images = [Image??](repeating: nil, count: segments.count)
    }

    /// The image holding `address`, or nil when no loaded image does.
    mutating func image(containing address: UInt) -> Image? {
        var low = 0
        var high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].start <= address { low = middle + 1 } else { high = middle }
        }
        let index = low - 1
        // Outside every segment read (an image loaded since, a platform without the list):
        // the loader is asked for this address alone.
        guard index >= 0, address < segments[index].end else { return Self.named(address) }
        if let known = images[index] { return known }
        let named = Self.named(segments[index].start)
        images[index] = .some(named)
        return named
    }

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

    private static func named(_ address: UInt) -> Image? {
        var path: UnsafePointer<CChar>?
        var base: UInt = 0
        var symbol: UnsafePointer<CChar>?
        var symbolAddress: UInt = 0
        guard lg_dladdr(address, &path, &base, &symbol, &symbolAddress) != 0, let path else { return nil }
        return Image(path: String(cString: path), base: base)
    }
}
