import Foundation
import LeakGraph
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a parser call, turning its error into a reader ``DumpReader/Failure``.
@inline(__always)
func parse<T>(_ body: () throws(DumpParseError) -> T) throws(DumpReader.Failure) -> T {
    do {
        return try body()
    } catch {
        throw .parse(error)
    }
}

/// Everything a dump contains, as decoded, before cross-checks.
struct DumpContents {
    var format: String?
    var version: Int?
    var processID: Int32?
    var time = 0.0
    var objects: [ObjectInfo] = []
    /// The objects' `unread` records, in the objects' order.
    var unread: [UnreadReferenceInfo] = []
    /// Ids of objects written with `"leaked": true`.
    var leakedFlags: [UInt64] = []
    /// `leakedFlags` as a set, when the objects worker made it (off the reader's path).
    var leakedSet: Set<UInt64>?
    /// Whether `objects` came in ascending id order (as writers emit them), which makes the
    /// duplicate check a linear scan.
    var objectsAscending = true
    var edges: [EdgeInfo] = []
    var stacks: [StackInfo] = []
    var cycles: [Cycle]?
    var unknownOwners: [UnknownOwner]?
    var possibleLeaks: [PossibleLeak]?
    var declarations: [FieldDeclaration] = []
    var neverFinished: [UInt64] = []
    var canNeverFinish: [UInt64] = []
    var summary: LeakGraphDump.Summary?

    struct Problem: Error {
        var problem: String
    }

    /// Checks that ids are unique and that everything that names an object or a stack names
    /// one that is in the file.
    func checkReferences() throws(Problem) {
        var ids = objects.map(\.id)
        if !objectsAscending { ids.sort() }
        for index in ids.indices.dropFirst() where ids[index] == ids[index - 1] {
            throw Problem(problem: "lists object id \(ids[index]) twice")
        }
        let known = IDSet(sortedIDs: ids)
        let stackIDs = try stackIndex()
        func missingObject(_ id: UInt64, _ place: String) -> Problem {
            Problem(problem: "\(place) names object \(id), which is not in \"objects\"")
        }
        func missingStack(_ id: Int, _ place: String) -> Problem {
            Problem(problem: "\(place) names stack \(id), which is not in \"stacks\"")
        }
        // Records are read by position, a field at a time: iterating them copied each whole
        // (retaining its strings), most of this check's time on a big dump.
        for index in objects.indices {
            if let stack = objects[index].stack, !stackIDs.contains(stack) {
                throw missingStack(stack, "objects[\(index)].stack")
            }
        }
        for index in edges.indices {
            let (from, to) = (edges[index].from, edges[index].to)
            guard known.contains(from) else { throw missingObject(from, "edges[\(index)].from") }
            guard known.contains(to) else { throw missingObject(to, "edges[\(index)].to") }
            if let site = edges[index].site, !stackIDs.contains(site) {
                throw missingStack(site, "edges[\(index)].site")
            }
        }
        let allCycles = cycles ?? []
        for index in allCycles.indices {
            for (member, id) in allCycles[index].objects.enumerated() where !known.contains(id) {
                throw missingObject(id, "cycles[\(index)].objects[\(member)]")
            }
            for (step, path) in allCycles[index].path.enumerated() {
                guard known.contains(path.from) else {
                    throw missingObject(path.from, "cycles[\(index)].path[\(step)].from")
                }
                guard known.contains(path.to) else { throw missingObject(path.to, "cycles[\(index)].path[\(step)].to") }
            }
            for (number, holder) in allCycles[index].unexplainedHolders.enumerated() {
                let place = "cycles[\(index)].unexplainedHolders[\(number)]"
                guard known.contains(holder.object) else { throw missingObject(holder.object, place + ".object") }
                for (position, id) in holder.knownHolders.enumerated() where !known.contains(id) {
                    throw missingObject(id, place + ".knownHolders[\(position)]")
                }
            }
        }
        for (index, owner) in (unknownOwners ?? []).enumerated() where !known.contains(owner.object) {
            throw missingObject(owner.object, "unknownOwners[\(index)].object")
        }
        for (index, id) in neverFinished.enumerated() where !known.contains(id) {
            throw missingObject(id, "neverFinished[\(index)]")
        }
        for (index, id) in canNeverFinish.enumerated() where !known.contains(id) {
            throw missingObject(id, "canNeverFinish[\(index)]")
        }
        for (index, leak) in (possibleLeaks ?? []).enumerated() {
            if let cycle = leak.cycle, cycle < 0 || cycle >= (cycles?.count ?? 0) {
                throw Problem(problem: "possibleLeaks[\(index)].cycle is \(cycle), not the position of a cycle")
            }
            if let object = leak.object, !known.contains(object) {
                throw missingObject(object, "possibleLeaks[\(index)].object")
            }
        }
    }

    /// The stack ids, checked for duplicates; writers number stacks 0, 1, 2… in order, which
    /// needs no table.
    func stackIndex() throws(Problem) -> StackIDs {
        if stacks.indices.allSatisfy({ stacks[$0].id == $0 }) { return .dense(stacks.count) }
        var ids = Set<Int>(minimumCapacity: stacks.count)
        for stack in stacks where !ids.insert(stack.id).inserted {
            throw Problem(problem: "lists stack id \(stack.id) twice")
        }
        return .sparse(ids)
    }

    enum StackIDs {
        case dense(Int)
        case sparse(Set<Int>)

        func contains(_ id: Int) -> Bool {
            switch self {
            case .dense(let count): id >= 0 && id < count
            case .sparse(let ids): ids.contains(id)
            }
        }
    }
}
