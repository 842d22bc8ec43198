import LeakGraph

/// Turns a loaded dump into a ``LeakSummary`` (and the full tallies `diff` compares).
///
/// Cost: O(objects + edges) with hashing; about a second for 1,000,000 objects.
package enum ReportBuilder {
    /// Summarises `loaded`, keeping at most `top` types and sites.
    ///
    /// - Parameters:
    ///   - loaded: The dump and its analysis.
    ///   - top: How many types and sites to keep.
    ///   - memberLimit: How many members of each leaked cycle group to describe.
    package static func summarize(_ loaded: LoadedDump, top: Int, memberLimit: Int = 50) -> LeakSummary {
        // Advice does not depend on which entry point ran first (a test may call a command's
        // `run` directly).
        LeakGraphCommand.registerLibraryAdvice()
        let dump = loaded.dump
        let snapshot = dump.snapshot
        // Who keeps what alive alone, for each leak's culprit (only when something leaked): the
        // longest part of a big summary, computed on a thread of its own meanwhile.
        let analysis = loaded.analysis
        let dominatorTree =
            dump.cycles.contains(where: \.leaked) ? BackgroundResult { Dominators(snapshot, report: analysis) } : nil
        let sites = SiteNames(snapshot)
        // Types and sites counted over every object, beside the grouping of cycles below.
        // Ids to positions once, for the tallies and the cycles' sites.
        let objectIndex = NodeIndex(snapshot.objects)
        let tallies = BackgroundResult { DumpTallies(loaded, sites: sites, index: objectIndex) }
        func entry(_ id: UInt64, unexplained: Int? = nil, withStack: Bool = false) -> LeakSummary.ObjectEntry {
            guard let object = snapshot.object(id) else {
                return LeakSummary.ObjectEntry(id: id, type: "?", unexplained: unexplained)
            }
            let stack = withStack ? snapshot.stack(object.stack).map { Array($0.frames.prefix(64)) } : nil
            return LeakSummary.ObjectEntry(
                id: id, type: object.type, label: object.label,
                state: object.state == .unspecified ? nil : object.state.rawValue, unexplained: unexplained,
                heldBy: object.heldByGlobals.isEmpty ? nil : object.heldByGlobals,
                outsideHolders: object.outsideHolders.isEmpty ? nil : object.outsideHolders,
                site: sites.site(of: object),
                stack: stack)
        }

        // Leaked cycles by signature, in first-seen order, then by count; a group holds its
        // cycles' positions in `dump.cycles` (copying 200,000 cycles into groups, each copy
        // retaining its arrays and strings, was a quarter of this summary).
        let cycles = dump.cycles
        var signatures = StringInterner()
        var groups: [[Int]] = []
        // Identical signatures come in runs: the previous one is compared before any hashing
        // (comparing a string with itself is free; hashing one that is not ASCII is not).
        var previous: (signature: String, group: Int)?
        // Library leaks (and those --ignore or --baseline accept) are grouped apart.
        var libraryGroups: [String: Int] = [:]
        var libraryLeaks: [LeakSummary.LibraryLeakGroup] = []
        for position in cycles.indices where cycles[position].leaked {
            if let known = cycles[position].libraryLeak {
                let cycle = cycles[position]
                let key = known + "\u{0}" + cycle.signature
                if let index = libraryGroups[key] {
                    libraryLeaks[index].count += 1
                } else {
                    libraryGroups[key] = libraryLeaks.count
                    let library = KnownLeak.library(ofMark: known)
                    libraryLeaks.append(
                        LeakSummary.LibraryLeakGroup(
                            library: library, reason: known, signature: cycle.signature, loop: cycle.loopDescription,
                            count: 1))
                }
                continue
            }
            let signature = cycles[position].signature
            let index: Int
            if let previous, previous.signature == signature {
                index = previous.group
            } else {
                index = Int(signatures.number(of: signature))
                previous = (signature, index)
            }
            if index < groups.count {
                groups[index].append(position)
            } else {
                groups.append([position])
            }
        }
        let ordered = groups.enumerated().sorted {
            $0.element.count != $1.element.count ? $0.element.count > $1.element.count : $0.offset < $1.offset
        }.map(\.element)
        let retained = cycles.filter { !$0.leaked }
        let edges = CycleEdges(snapshot, cycles: ordered.map { cycles[$0[0]] } + retained)
        let dominators = dominatorTree?.value
        let leakedCycles = ordered.map { group in
            let first = cycles[group[0]]
            let members = group.map { cycles[$0].objects }
            var summary = LeakSummary.CycleGroup(
                signature: first.signature, count: group.count, loop: first.loopDescription,
                members: loopOrder(first).prefix(memberLimit).map { entry($0, withStack: true) },
                cycles: members,
                hint: LeakHint.choose(for: first, in: snapshot, edges: edges),
                verdict: LeakHint.verdict(
                    for: first, in: snapshot, edges: edges,
                    keptAlive: dominators.map { LeakTrace.keptAlive(by: first, $0) } ?? 0))
            summary.culprit = dominators.map { LeakTrace.culpritLine(for: first, $0, snapshot) }
            summary.sites = CycleSites.sites(of: first, members: members, in: snapshot, index: objectIndex)
            return summary
        }

        // A retained cycle that is a known library leak (XCTest's last test case and its run,
        // still held at exit) gets the library's reason instead of a fix in the library's code.
        var libraryMatcher = KnownLeakMatcher()
        let retainedCycles = retained.map { cycle in
            let library = libraryMatcher.match(cycle, in: snapshot)
            return LeakSummary.RetainedCycle(
                signature: cycle.signature, loop: cycle.loopDescription, objects: cycle.objects,
                holders: cycle.unexplainedHolders.map { holder in
                    LeakSummary.Holder(
                        object: entry(holder.object), unexplained: holder.unexplained,
                        knownHolders: holder.knownHolders.prefix(memberLimit).map { entry($0) })
                }, hint: library == nil ? LeakHint.choose(for: cycle, in: snapshot, edges: edges) : nil,
                verdict: LeakHint.verdict(for: cycle, in: snapshot, edges: edges), library: library)
        }
        let partial = dump.summary.flatMap { $0.isComplete ? nil : $0.liveObjects }
        var summary = LeakSummary(
            file: loaded.path, pid: dump.processID, objectCount: snapshot.objects.count,
            edgeCount: snapshot.edges.count, liveObjectCount: partial,
            leakedObjectCount: libraryLeaks.isEmpty
                ? dump.leakedObjectIDs.count : KnownLeaks.userLeaks(of: loaded.analysis, in: snapshot).objects.count,
            leakedCycles: leakedCycles, retainedCycles: retainedCycles,
            unknownOwners: loaded.analysis.unknownOwners.map { owner in
                var object = entry(owner.object, unexplained: owner.unexplained)
                if owner.reachesUnreadMemory { object.reachesUnreadMemory = true }
                return object
            },
            finishedButHeld: loaded.analysis.finishedButHeld.map { entry($0) },
            topTypes: Array(tallies.value.types.prefix(max(0, top))),
            topSites: Array(tallies.value.sites.prefix(max(0, top))))
        summary.libraryLeaks = libraryLeaks.sorted { $0.count != $1.count ? $0.count > $1.count : $0.loop < $1.loop }
        summary.trackingOff = dump.summary?.trackingOff ?? false
        summary.notChecked = dump.summary?.notCheckedReason
        summary.possibleLeaks = dump.possibleLeaks.map { leak in
            let cycle = leak.cycle.map { dump.cycles[$0] }
            return LeakSummary.PossibleLeakEntry(
                loop: cycle?.loopDescription ?? leak.object.map { entry($0).displayName } ?? "?",
                objects: cycle?.objects ?? leak.object.map { [$0] } ?? [], unexplained: leak.unexplained,
                verdict: LeakTrace.possibleLeakSentence(leak, cycle: cycle, snapshot),
                unread: leak.unread.map { "\(entry($0.object).displayName), \($0.place): \($0.why)" })
        }
        summary.canNeverFinish = loaded.analysis.canNeverFinish.map { entry($0) }
        summary.neverFinished = loaded.analysis.neverFinished.map { entry($0) }
        return summary
    }

    /// A cycle's members in loop order, then the members off the loop by id.
    static func loopOrder(_ cycle: Cycle) -> [UInt64] {
        var seen = Set<UInt64>()
        var order: [UInt64] = []
        for id in cycle.path.map(\.from) + cycle.objects where seen.insert(id).inserted { order.append(id) }
        return order
    }
}

/// The first user-code frame of each stack, looked up by stack id.
struct SiteNames {
    /// Shown for objects without a recorded stack.
    static let unknown = "(no allocation stack)"
    private var names: [Int: String] = [:]

    init(_ snapshot: GraphSnapshot) {
        for stack in snapshot.stacks where names[stack.id] == nil {
            names[stack.id] = stack.userFrameDescription ?? Self.unknown
        }
    }

    func site(of object: ObjectInfo) -> String? {
        object.stack.flatMap { names[$0] }
    }

    /// The site of the stack with id `stack`.
    func site(ofStack stack: Int) -> String? {
        names[stack]
    }
}

/// Object counts by type and by allocation site, largest first, and leaked cycles by signature.
struct DumpTallies {
    var types: [LeakSummary.Tally]
    var sites: [LeakSummary.Tally]
    var leakedSignatures: [String: Int]

    init(_ loaded: LoadedDump, sites names: SiteNames? = nil, index: NodeIndex? = nil) {
        let snapshot = loaded.dump.snapshot
        let names = names ?? SiteNames(snapshot)
        let leaked = loaded.dump.leakedObjectIDs
        // Counted per type number and per stack id, then named: hashing a type name and a site
        // name per object was most of a million-object report.
        var typeNumbers = StringInterner()
        var typeCounts: [(count: Int, leaked: Int)] = []
        // Stacks counted in an array by id where the ids are dense (a dump's are numbered from
        // 0), else hashed.
        let stackLimit = 4 * snapshot.stacks.count + 1024
        let denseStacks = snapshot.stacks.allSatisfy { $0.id >= 0 && $0.id < stackLimit }
        var stackArray = [(count: Int, leaked: Int)](
            repeating: (0, 0), count: denseStacks ? (snapshot.stacks.map(\.id).max() ?? -1) + 1 : 0)
        var stackCounts: [Int: (count: Int, leaked: Int)] = [:]
        var noStack = (count: 0, leaked: 0)
        // A flag per object, set from the leaked ids through a (usually direct) index: a set
        // lookup per object was most of these tallies.
        let leakedFlags = (index ?? NodeIndex(snapshot.objects)).flags(of: leaked)
        // The two types seen last, compared before hashing: objects come in runs and in
        // alternations of a few types, and comparing a string with an equal one is cheaper than
        // hashing it once per object.
        var recent: [(type: String, number: Int)] = []
        let objects = snapshot.objects
        for position in objects.indices {
            let isLeaked = leakedFlags[position] ? 1 : 0
            let type = objects[position].type
            let index: Int
            if let hit = recent.firstIndex(where: { $0.type == type }) {
                index = recent[hit].number
                if hit == 1 { recent.swapAt(0, 1) }
            } else {
                index = Int(typeNumbers.number(of: type))
                recent.insert((type, index), at: 0)
                if recent.count > 2 { recent.removeLast() }
            }
            if index == typeCounts.count { typeCounts.append((0, 0)) }
            typeCounts[index].count += 1
            typeCounts[index].leaked += isLeaked
            if let stack = objects[position].stack {
                if stack >= 0 && stack < stackArray.count {
                    stackArray[stack].count += 1
                    stackArray[stack].leaked += isLeaked
                } else {
                    stackCounts[stack, default: (0, 0)].count += 1
                    stackCounts[stack, default: (0, 0)].leaked += isLeaked
                }
            } else {
                noStack.count += 1
                noStack.leaked += isLeaked
            }
        }
        for (stack, tally) in stackArray.enumerated() where tally.count > 0 { stackCounts[stack] = tally }
        var types: [String: (count: Int, leaked: Int)] = [:]
        for (index, name) in typeNumbers.strings.enumerated() { types[name] = typeCounts[index] }
        var sites: [String: (count: Int, leaked: Int)] = [:]
        for (stack, tally) in stackCounts {
            let site = names.site(ofStack: stack) ?? SiteNames.unknown
            sites[site, default: (0, 0)].count += tally.count
            sites[site, default: (0, 0)].leaked += tally.leaked
        }
        if noStack.count > 0 {
            sites[SiteNames.unknown, default: (0, 0)].count += noStack.count
            sites[SiteNames.unknown, default: (0, 0)].leaked += noStack.leaked
        }
        func sorted(_ table: [String: (count: Int, leaked: Int)]) -> [LeakSummary.Tally] {
            table.map { LeakSummary.Tally(name: $0.key, count: $0.value.count, leaked: $0.value.leaked) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }
        }
        if let summary = loaded.dump.summary, !summary.isComplete {
            // A dump of cycles only counts every live object by type in its summary.
            self.types = summary.types.map { LeakSummary.Tally(name: $0.type, count: $0.count, leaked: $0.leaked) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }
        } else {
            self.types = sorted(types)
        }
        self.sites = sorted(sites)
        var numbering = StringInterner()
        var counts: [Int] = []
        // Library leaks and accepted ones are not growth the user must answer for.
        for cycle in loaded.dump.cycles where cycle.leaked && cycle.libraryLeak == nil {
            let number = Int(numbering.number(of: cycle.signature))
            if number == counts.count { counts.append(0) }
            counts[number] += 1
        }
        leakedSignatures = Dictionary(uniqueKeysWithValues: zip(numbering.strings, counts))
    }
}

/// The edges that make up some cycles' loops, by (from, to, label).
struct CycleEdges {
    private var edges: [Key: EdgeInfo] = [:]

    private struct Key: Hashable {
        var from: UInt64
        var to: UInt64
        var label: String
    }

    init(_ snapshot: GraphSnapshot, cycles: [Cycle]) {
        var wanted = Set<Key>()
        // Edges are first told apart by their source, an integer: hashing every edge's label
        // was most of this pass over a million edges.
        var wantedSources = Set<UInt64>()
        for cycle in cycles {
            for step in cycle.path {
                wanted.insert(Key(from: step.from, to: step.to, label: step.label))
                wantedSources.insert(step.from)
            }
        }
        guard !wanted.isEmpty else { return }
        for edge in snapshot.edges where edge.kind.keepsAlive && wantedSources.contains(edge.from) {
            let key = Key(from: edge.from, to: edge.to, label: edge.label)
            if wanted.contains(key) && edges[key] == nil { edges[key] = edge }
        }
    }

    /// The strong edge behind a loop step, if the dump has it.
    func edge(for step: Cycle.PathStep) -> EdgeInfo? {
        edges[Key(from: step.from, to: step.to, label: step.label)]
    }
}
