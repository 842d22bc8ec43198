import CLeakGraphSupport
import Foundation

/// The globals that hold objects: what a leak description names for the holders the graph does
/// not show (`held from outside: 1 reference … — global keptForever : Parent?`).
///
/// Every loaded image's writable segments are compared word by word with the objects' addresses
/// (`lg_find_global_holders`, through fault-safe copies), and each hit is named from the image's
/// symbol table. A word of a global that merely equals an address (an integer, a stale pointer)
/// would name a wrong holder, never change a verdict: this only adds names.
enum GlobalHolders {
    /// The most globals named in one description (at most 4 for any one object).
    static let capacity = 4096

    /// For each of `addresses` held by a global, the globals' names (`keptForever : Parent?
    /// (plain-classes-example)`).
    static func names(holding addresses: [UInt]) -> [UInt: [String]] {
        let targets = Array(Set(addresses)).sorted()
        guard !targets.isEmpty else { return [:] }
        var slots = [UInt](repeating: 0, count: capacity)
        var found = [UInt](repeating: 0, count: capacity)
        let count = lg_find_global_holders(targets, targets.count, &slots, &found, capacity)
        guard count > 0 else { return [:] }
        // By image: one symbolizer run each.
        var byImage: [String: [(slot: Int, offset: UInt)]] = [:]
        let images = LoadedImages()
        for index in 0..<count {
            guard let image = images.image(containing: slots[index]) else { continue }
            byImage[image.path, default: []].append((index, slots[index] - image.base))
        }
        var result: [UInt: [String]] = [:]
        var namesByImage: [String: [String?]] = [:]
        for (image, entries) in byImage {
            namesByImage[image] = ExternalSymbolizer.shared.symbolizeData(image: image, offsets: entries.map(\.offset))
        }
        // Demangled in one batch (one tool started, none for names earlier runs demangled).
        ExternalSymbolizer.shared.prefetchDemangled(
            Array(Set(namesByImage.values.joined().compactMap { $0 }.filter { $0.hasPrefix("$s") })))
        for (image, entries) in byImage {
            guard let names = namesByImage[image] else { continue }
            let imageName = (image as NSString).lastPathComponent
            for (entry, name) in zip(entries, names) {
                guard let name, !Symbolicator.isLeakGraphSymbol(name) else { continue }
                let readable = name.hasPrefix("$s") ? ExternalSymbolizer.shared.simplifiedDemangle(name) ?? name : name
                result[found[entry.slot], default: []].append("\(readable) (\(imageName))")
            }
        }
        return result
    }
}
