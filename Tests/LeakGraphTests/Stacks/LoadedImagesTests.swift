import CLeakGraphSupport
import Foundation
import Testing

@testable import LeakGraph

/// A function of the test binary itself.
private let aFunctionOfThisBinary: @convention(c) () -> Int32 = { 42 }

/// A global of the test binary (its writable data).
nonisolated(unsafe) private var aGlobalOfThisBinary = 7  // only its address is read

/// `dlsym` over every loaded image.
private func loadedSymbol(_ name: String) -> UInt {
    UInt(bitPattern: dlsym(dlopen(nil, RTLD_NOW), name))
}

/// Finding an address's image from the images' segments, as symbolication and the naming of
/// globals do, agrees with the loader's `dladdr` for every kind of image and segment, and says
/// when no image holds an address.
struct LoadedImagesTests {
    /// `dladdr`'s image path and base for `address`.
    private func loaderImage(of address: UInt) -> (path: String, base: UInt)? {
        var path: UnsafePointer<CChar>?
        var base: UInt = 0
        var symbol: UnsafePointer<CChar>?
        var symbolAddress: UInt = 0
        guard lg_dladdr(address, &path, &base, &symbol, &symbolAddress) != 0, let path else { return nil }
        return (String(cString: path), base)
    }

    @Test(
        "code and a global of the test binary, the Swift runtime, Foundation and libc: the image dladdr names, at its base"
    )
    func agreesWithTheLoader() throws {
        let addresses: [UInt] = [
            unsafeBitCast(aFunctionOfThisBinary, to: UInt.self),
            withUnsafePointer(to: &aGlobalOfThisBinary) { UInt(bitPattern: $0) }, loadedSymbol("swift_retain"),
            loadedSymbol(
                "$s10Foundation17JSONSerializationC10jsonObject4with7optionsyp0A10Essentials4DataV_AC14ReadingOptionsVtKFZ"
            ),
            loadedSymbol("malloc"),
        ].filter { $0 != 0 }
        #expect(addresses.count >= 4)
        let images = LoadedImages()
        for address in addresses {
            let expected = try #require(loaderImage(of: address))
            let image = images.image(containing: address)
            let found = try #require(image)
            // The main program: dladdr says argv[0], this its file; the same file either way.
            #expect(
                found.path == expected.path
                    || URL(fileURLWithPath: found.path).resolvingSymlinksInPath()
                        == URL(fileURLWithPath: expected.path).resolvingSymlinksInPath()
            )
            #expect(found.base == expected.base)
        }
    }

    @Test("an address no image holds has no image, and no exported symbol")
    func unmappedAddress() {
        let images = LoadedImages()
        let heap = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        defer { heap.deallocate() }
        #expect(images.image(containing: UInt(bitPattern: heap)) == nil)
        #expect(images.image(containing: 8) == nil)
        #expect(LoadedImages.exportedSymbol(at: 8) == nil)
    }

    @Test("the nearest exported symbol is the loader's")
    func exportedSymbol() throws {
        let malloc = loadedSymbol("malloc")
        #expect(malloc != 0)
        let name = try #require(LoadedImages.exportedSymbol(at: malloc + 1))
        #expect(name.containsBytes("malloc"))
    }
}
