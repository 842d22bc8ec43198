/// The holds snapshots have taken and not yet let go of: another snapshot reading retain counts
/// meanwhile subtracts them.
///
/// A snapshot lists all its holds at once (its array of addresses, no work per hold) and unlists
/// them front to back, a batch before releasing that batch. Readers are rare (snapshots that
/// overlap another's release): they pay for counting what is listed, the writer pays nothing per
/// hold. (A dictionary entry per hold cost a million-object snapshot about a tenth of its time.)
struct HoldLedger {
    private struct Listing {
        let addresses: [UInt]
        /// `addresses[..<unlisted]` are no longer listed.
        var unlisted = 0
    }

    private var listings: [Int: Listing] = [:]
    private var nextKey = 0

    /// Lists `addresses` (one hold each) and returns the key to unlist them with.
    mutating func list(_ addresses: [UInt]) -> Int {
        let key = nextKey
        nextKey += 1
        if !addresses.isEmpty { listings[key] = Listing(addresses: addresses) }
        return key
    }

    /// Unlists the holds of listing `key` before position `end` (the listing is gone once all are).
    mutating func unlist(_ key: Int, before end: Int) {
        guard var listing = listings[key] else { return }
        if end >= listing.addresses.count {
            listings[key] = nil
        } else {
            listing.unlisted = max(listing.unlisted, end)
            listings[key] = listing
        }
    }

    /// What is listed now, to be counted outside the lock (``counts``).
    var listed: [(addresses: [UInt], from: Int)] {
        listings.values.map { ($0.addresses, $0.unlisted) }
    }

    /// Listed holds by address.
    static func counts(_ listed: [(addresses: [UInt], from: Int)]) -> [UInt: Int] {
        var counts: [UInt: Int] = [:]
        for (addresses, from) in listed {
            for address in addresses[from...] { counts[address, default: 0] += 1 }
        }
        return counts
    }
}
