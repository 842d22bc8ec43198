import LeakGraph
import Testing

@Suite("The one-sentence verdict")
struct LeakVerdictTests {
    /// `first —label→ second —back→ first`, with `declaration` read from the source.
    private func pair(
        _ first: String, _ label: String, _ second: String, back: String, declaring declaration: FieldDeclaration
    ) -> GraphSnapshot {
        var snapshot = GraphBuilder().object(1, first).object(2, second).edge(1, 2, label).edge(2, 1, back).build()
        snapshot.fieldDeclarations = [declaration]
        return snapshot
    }

    private func firstCycle(_ snapshot: GraphSnapshot) throws -> (Cycle, LeakReport) {
        let report = LeakDetector.analyze(snapshot)
        return (try #require(report.cycles.first), report)
    }

    @Test("a back reference: what keeps itself alive, through what, how many objects leak, what to do")
    func backReference() throws {
        // Parent ⇄ Child, and the pair alone keeps a Cache alive.
        let snapshot = GraphBuilder().object(1, "Parent").object(2, "Child").object(3, "Cache")
            .edge(1, 2, "child").edge(2, 1, "parent").edge(1, 3, "cache").build()
        let (cycle, report) = try firstCycle(snapshot)
        let kept = LeakTrace.keptAlive(by: cycle, Dominators(snapshot, report: report))
        #expect(kept == 1)
        #expect(
            LeakTrace.verdict(for: cycle, in: snapshot, keptAlive: kept)
                == "Child keeps itself alive through Child —parent→ Parent —child→ Child; 3 objects leak; "
                + "make `parent` in Child weak.")
    }

    @Test("a reference inside a field's storage is cleared, never declared weak: the declaration is shown unchanged")
    func referenceInsideAField() throws {
        // A subscriber keeping each subscription in an array of events (OpenCombine's test helper).
        let snapshot = pair(
            "Recorder", "history[0].subscription", "Conduit", back: "downstream",
            declaring: FieldDeclaration(
                type: "Recorder", field: "history", file: "Sources/App/Recorder.swift", line: 80,
                text: "private(set) var history: [Event] = []"))
        let (cycle, _) = try firstCycle(snapshot)
        let fix = try #require(LeakTrace.fix(for: cycle, in: snapshot))
        #expect(fix.action == "clear `history` in Recorder when it is done")
        #expect(!fix.advice.contains("weak var"))
        #expect(fix.advice.contains("remove it from `history`"), "\(fix.advice)")
        // An enum's payload: set the field to another case.
        let member = GraphBuilder().object(1, "Inner").object(2, "Conduit")
            .edge(1, 2, "status.subscribed").edge(2, 1, "downstream").build()
        let (memberCycle, _) = try firstCycle(member)
        let memberAdvice = LeakTrace.fix(for: memberCycle, in: member)?.advice ?? ""
        #expect(memberAdvice.contains("set `status` to a value that does not hold it"), "\(memberAdvice)")
        // A dictionary's key is an element too.
        let key = GraphBuilder().object(1, "Cache").object(2, "Entry")
            .edge(1, 2, "ownerIndex.keys[0]").edge(2, 1, "value").build()
        let (keyCycle, _) = try firstCycle(key)
        let keyFix = LeakTrace.fix(for: keyCycle, in: key)
        #expect(keyFix?.step.label == "ownerIndex.keys[0]")
        #expect(keyFix?.advice.contains("remove it from `ownerIndex`") == true, "\(keyFix?.advice ?? "")")
        // A property named with an underscore is a property, not a place inside one.
        let underscored = GraphBuilder().object(1, "Controller").object(2, "View")
            .edge(1, 2, "view").edge(2, 1, "_delegate").build()
        let (underscoredCycle, _) = try firstCycle(underscored)
        #expect(LeakTrace.fix(for: underscoredCycle, in: underscored)?.action == "make `_delegate` in View weak")
        let sentence = LeakTrace.verdict(for: cycle, in: snapshot)
        #expect(
            sentence.hasSuffix(
                "fix at Recorder.swift:80 (`private(set) var history: [Event] = []`): "
                    + "clear `history` in Recorder when it is done."))
        // The field itself is still declared weak.
        let direct = pair(
            "Recorder", "conduit", "Conduit", back: "downstream",
            declaring: FieldDeclaration(
                type: "Recorder", field: "conduit", file: "Recorder.swift", line: 3,
                text: "let conduit: Conduit = Conduit()"))
        let (directCycle, _) = try firstCycle(direct)
        #expect(
            LeakTrace.verdict(for: directCycle, in: direct).contains(
                "fix at Recorder.swift:3 (`let conduit: Conduit = Conduit()` → `weak var conduit: Conduit? = Conduit()`)"
            ))
    }

    @Test("a lazy property's storage is found at its declaration, and cleared, never made weak")
    func lazyProperty() throws {
        // Swinject's ServiceEntry keeps its instance storage in a `lazy var`.
        let snapshot = pair(
            "ServiceEntry", "$__lazy_storage_$_storage", "PermanentStorage", back: "instance",
            declaring: FieldDeclaration(
                type: "ServiceEntry", field: "storage", file: "Sources/ServiceEntry.swift", line: 28,
                text: "internal lazy var storage: InstanceStorage = { [unowned self] in"))
        let (cycle, _) = try firstCycle(snapshot)
        let fix = try #require(LeakTrace.fix(for: cycle, in: snapshot, rules: []))
        #expect(fix.step.label == "$__lazy_storage_$_storage")
        #expect(fix.action == "clear `storage` in ServiceEntry when it is done")
        let sentence = LeakTrace.verdict(for: cycle, in: snapshot)
        #expect(
            sentence.contains(
                "fix at ServiceEntry.swift:28 (`internal lazy var storage: InstanceStorage = { [unowned self] in`)"),
            "\(sentence)")
        #expect(!sentence.contains("weak var storage"))
    }

    @Test("a property declared `Any?` holding an object is cleared, never rewritten as an invalid weak one")
    func anyProperty() throws {
        // Swinject's PermanentStorage keeps its instance as `Any?`.
        let snapshot = pair(
            "Container", "storage", "PermanentStorage", back: "instance",
            declaring: FieldDeclaration(
                type: "PermanentStorage", field: "instance", file: "Sources/InstanceStorage.swift", line: 44,
                text: "public var instance: Any?"))
        let (cycle, _) = try firstCycle(snapshot)
        let fix = try #require(LeakTrace.fix(for: cycle, in: snapshot, rules: []))
        #expect(fix.step.label == "instance")
        #expect(fix.action == "clear `instance` in PermanentStorage when it is done")
        #expect(fix.advice.contains("is declared `Any?`, which cannot be weak"), "\(fix.advice)")
        let sentence = LeakTrace.verdict(for: cycle, in: snapshot)
        #expect(sentence.contains("fix at InstanceStorage.swift:44 (`public var instance: Any?`):"), "\(sentence)")
    }

    /// NIO's channel pipeline as HummingbirdTesting leaves it: a testing channel made per request
    /// and never closed, whose pipeline's head and tail contexts hold each other.
    private func unclosedPipeline(declaringIn file: String, checkout: Bool) -> GraphSnapshot {
        var snapshot = GraphBuilder().object(1, "ChannelHandlerContext").object(2, "ChannelHandlerContext")
            .object(3, "ChannelPipeline").object(4, "NIOAsyncTestingChannel")
            .edge(1, 2, "next").edge(2, 1, "prev").edge(1, 3, "pipeline").edge(3, 1, "head").edge(4, 3, "pipeline")
            .edge(3, 4, "_channel").build()
        let framework =
            "closure #1 in RouterTestFramework.init<A>(app:) at Sources/HummingbirdTesting/RouterTestFramework.swift:39"
        snapshot.stacks = [
            // The channel made at the user's line; the pipeline and contexts inside its initialiser.
            StackInfo(
                id: 0,
                frames: [
                    "NIOAsyncTestingChannel.init() at swift-nio/Sources/NIOEmbedded/AsyncTestingChannel.swift:250",
                    framework,
                ], userFrame: 1),
            StackInfo(
                id: 1,
                frames: [
                    "ChannelPipeline.init(_:) at swift-nio/Sources/NIOCore/ChannelPipeline.swift:1000",
                    "NIOAsyncTestingChannel.init() at swift-nio/Sources/NIOEmbedded/AsyncTestingChannel.swift:251",
                    framework,
                ], userFrame: 2),
        ]
        for position in snapshot.objects.indices {
            snapshot.objects[position].stack = snapshot.objects[position].type == "NIOAsyncTestingChannel" ? 0 : 1
        }
        snapshot.fieldDeclarations = ["next", "prev"].enumerated().map { offset, field in
            FieldDeclaration(
                type: "ChannelHandlerContext", field: field, file: file, line: 1861 + offset,
                text: "fileprivate var \(field): Optional<ChannelHandlerContext>", isInDependency: checkout)
        }
        return snapshot
    }

    @Test("a cycle a dependency declares is fixed where the user's code made what holds it, never in the dependency")
    func dependencyOwnStructure() throws {
        let snapshot = unclosedPipeline(declaringIn: "swift-nio/Sources/NIOCore/ChannelPipeline.swift", checkout: true)
        let (cycle, _) = try firstCycle(snapshot)
        let fix = try #require(LeakTrace.fix(for: cycle, in: snapshot, rules: []))
        #expect(
            fix.action
                == "end NIOAsyncTestingChannel when done (close, finish or cancel it); the cycle is swift-nio's own")
        #expect(fix.advice.contains("declared by swift-nio"), "\(fix.advice)")
        let sentence = LeakTrace.verdict(for: cycle, in: snapshot)
        #expect(
            sentence.contains("fix at RouterTestFramework.swift:39 (closure #1 in RouterTestFramework.init<A>(app:))"),
            "\(sentence)")
        #expect(!sentence.contains("ChannelPipeline.swift"), "\(sentence)")
        #expect(LeakTrace.hint(for: cycle, in: snapshot).hasPrefix("end NIOAsyncTestingChannel: "))
        // Made by the dependency under some call of the user's (a singleton made lazily: no
        // initialiser of the user's between): said as the dependency's own, with no line and no cut.
        var lazily = snapshot
        lazily.stacks = [
            StackInfo(
                id: 0,
                frames: [
                    "ChannelPipeline.init(_:) at swift-nio/Sources/NIOCore/ChannelPipeline.swift:1000",
                    "one-time initialization function for singleton at swift-nio/Sources/NIOCore/Singleton.swift:9",
                    "Server.start() at Sources/App/Server.swift:12",
                ], userFrame: 2)
        ]
        for position in lazily.objects.indices { lazily.objects[position].stack = 0 }
        let own = try #require(LeakTrace.fix(for: cycle, in: lazily, rules: []))
        #expect(own.action == "nothing to change in your code: the cycle is swift-nio's own")
        let ownSentence = LeakTrace.verdict(for: cycle, in: lazily)
        #expect(!ownSentence.contains("fix at"), "\(ownSentence)")
        #expect(LeakTrace.hint(for: cycle, in: lazily).hasPrefix("nothing to change in your code: "))
    }

    @Test("a local package's declaration, shown like a dependency's path, is still fixed at its declaration")
    func localPackageIsTheUsers() throws {
        let snapshot = unclosedPipeline(declaringIn: "Core/Sources/Core/ChannelPipeline.swift", checkout: false)
        let (cycle, _) = try firstCycle(snapshot)
        let sentence = LeakTrace.verdict(for: cycle, in: snapshot)
        #expect(sentence.contains("fix at ChannelPipeline.swift:1862 (`fileprivate var prev"), "\(sentence)")
    }

    @Test(
        "the same cycle declared in the user's own package is fixed at its declaration, made weak without a second `?`")
    func ownStructureAtDeclaration() throws {
        let snapshot = unclosedPipeline(declaringIn: "Sources/App/ChannelPipeline.swift", checkout: false)
        let (cycle, _) = try firstCycle(snapshot)
        let sentence = LeakTrace.verdict(for: cycle, in: snapshot)
        #expect(
            sentence.contains(
                "(`fileprivate var prev: Optional<ChannelHandlerContext>` → `fileprivate weak var prev: Optional<ChannelHandlerContext>`)"
            ),
            "\(sentence)")
        #expect(LeakTrace.hint(for: cycle, in: snapshot).hasPrefix("cut "))
    }

    @Test("a collection spelled `Optional<[T]>` cannot be weak either: it is cleared, never rewritten")
    func spelledOutOptionalCollection() throws {
        let snapshot = pair(
            "Parent", "child", "Child", back: "parent",
            declaring: FieldDeclaration(
                type: "Child", field: "parent", file: "Sources/App/Child.swift", line: 4,
                text: "var parent: Optional<[Parent]>"))
        let (cycle, _) = try firstCycle(snapshot)
        let fix = try #require(LeakTrace.fix(for: cycle, in: snapshot, rules: []))
        #expect(fix.advice.contains("which cannot be weak"), "\(fix.advice)")
        #expect(!LeakTrace.verdict(for: cycle, in: snapshot).contains("weak var parent"))
    }

    @Test("of a loop's fields, the user's own is the one to change, not a dependency's")
    func ownFieldBeforeDependency() throws {
        var snapshot = pair(
            "Delegate", "connection", "Connection", back: "delegate",
            declaring: FieldDeclaration(
                type: "Connection", field: "delegate", file: "swift-nio/Sources/NIOCore/Connection.swift", line: 7,
                text: "var delegate: Delegate?", isInDependency: true))
        snapshot.fieldDeclarations.append(
            FieldDeclaration(
                type: "Delegate", field: "connection", file: "Sources/App/Delegate.swift", line: 3,
                text: "var connection: Connection?"))
        let (cycle, _) = try firstCycle(snapshot)
        let fix = try #require(LeakTrace.fix(for: cycle, in: snapshot, rules: []))
        #expect(fix.step.label == "connection")
        #expect(LeakTrace.verdict(for: cycle, in: snapshot).contains("fix at Delegate.swift:3"))
    }

    @Test("a path as reports show it names its dependency; the root package's and unknown ones name none")
    func dependencyOfShortPath() {
        #expect(
            Symbolicator.dependencyName(ofShortPath: "swift-nio/Sources/NIOCore/ChannelPipeline.swift") == "swift-nio")
        #expect(Symbolicator.dependencyName(ofShortPath: "Sources/App/Model.swift") == nil)
        #expect(Symbolicator.dependencyName(ofShortPath: "Tests/AppTests/ModelTests.swift") == nil)
        #expect(Symbolicator.dependencyName(ofShortPath: "/opt/src/Model.swift") == nil)
        #expect(Symbolicator.dependencyName(ofShortPath: "main.swift") == nil)
    }

    @Test("the culprit's victims name a closure context after its function, a thunk's as a thunk")
    func contextVictimNames() throws {
        let snapshot = GraphBuilder().object(1, "Inner<Sink<Int>>").object(2, "Sink<Int>")
            .object(3, "context of closure #1 in static FilterTests.testDemand<A>(subscriberIsAlsoSubscription:_:)")
            .object(4, "context of thunk for @escaping @callee_guaranteed (@in_guaranteed A.Output) -> (@unowned Bool)")
            .object(5, "context of closure #2 in variable initialization expression of DelayTests.delaySubscription")
            .edge(1, 2, "downstream").edge(2, 1, "subscription").edge(1, 3, "predicate").edge(1, 4, "thunk")
            .edge(1, 5, "schedule").build()
        let (cycle, report) = try firstCycle(snapshot)
        let line = LeakTrace.culpritLine(for: cycle, Dominators(snapshot, report: report), snapshot)
        #expect(line.contains("context of testDemand ×1"), "\(line)")
        #expect(line.contains("context of a thunk ×1"), "\(line)")
        #expect(line.contains("context of delaySubscription ×1"), "\(line)")
        #expect(!line.contains("Output)"), "\(line)")
        let closureLoop = GraphBuilder().object(1, "Container")
            .object(2, "context of closure #1 in Container.resolveAsWrapper<A, B>(name:option:invoker:)")
            .edge(1, 2, "factory").edge(2, 1, "capture").build()
        let (loop, _) = try firstCycle(closureLoop)
        let sentence = LeakTrace.verdict(for: loop, in: closureLoop)
        #expect(sentence.contains("—capture→ Container —factory→ context of resolveAsWrapper"), "\(sentence)")
        // An accessor keeps its property's name.
        let accessor = GraphBuilder().object(1, "Model").object(2, "context of closure #1 in Model.value.getter")
            .edge(1, 2, "cache").edge(2, 1, "capture").build()
        let (accessorLoop, _) = try firstCycle(accessor)
        let accessorSentence = LeakTrace.verdict(for: accessorLoop, in: accessor)
        #expect(accessorSentence.contains("context of value.getter"), "\(accessorSentence)")
    }

    @Test("a closure capture ends with making the capture weak")
    func capture() throws {
        let snapshot = GraphBuilder().object(1, "ViewModel").object(2, "FlatMap<Int>")
            .edge(1, 2, "results").edge(2, 1, "capture").build()
        let (cycle, _) = try firstCycle(snapshot)
        let sentence = LeakTrace.verdict(for: cycle, in: snapshot)
        #expect(sentence.hasPrefix("FlatMap<Int> keeps itself alive through FlatMap<Int> —capture→ ViewModel"))
        #expect(sentence.hasSuffix("; 2 objects leak; make the capture of ViewModel weak."))
    }

    @Test("a library's rule gives the action; a retained cycle says who still holds it")
    func ruleActionAndRetained() throws {
        let rule = LeakAdviceRule(
            name: "tests.Bus", priority: 150, cut: .ownerTypeName("Bus"), advice: "call unsubscribe().",
            action: "unsubscribe the listener")
        let leaked = GraphBuilder().object(1, "Bus").object(2, "Listener").edge(1, 2, "listener")
            .edge(2, 1, "bus").build()
        let (cycle, _) = try firstCycle(leaked)
        #expect(LeakTrace.fix(for: cycle, in: leaked, rules: [rule])?.action == "unsubscribe the listener")
        let held = GraphBuilder().object(1, "Parent", external: 2).object(2, "Child").edge(1, 2, "child")
            .edge(2, 1, "parent").build()
        let (retained, _) = try firstCycle(held)
        #expect(
            LeakTrace.verdict(for: retained, in: held).contains(
                "; it is retained, not leaked: 2 reference(s) from outside still hold it"))
    }
}

@Suite("The discovery-limits note")
struct DiscoveryLimitsNoteTests {
    @Test("said under verdicts a hidden reference could change (retained), not under leaked cycles alone")
    func onlyWhereItCanMatter() {
        var leaked = GraphBuilder().object(1, "Parent").object(2, "Child").edge(1, 2, "child").edge(2, 1, "parent")
            .build()
        leaked.discoveryLimits = ["closure contexts with captures of a type that cannot be resolved"]
        let leakedTrace = LeakTrace.describe(leaked, report: LeakDetector.analyze(leaked))
        #expect(leakedTrace.contains("Leaked cycle"))
        #expect(!leakedTrace.contains("discovery could not read"))

        var retained = GraphBuilder().object(1, "Parent", external: 1).object(2, "Child").edge(1, 2, "child")
            .edge(2, 1, "parent").build()
        retained.discoveryLimits = leaked.discoveryLimits
        let retainedTrace = LeakTrace.describe(retained, report: LeakDetector.analyze(retained))
        #expect(retainedTrace.contains("Retained cycle"))
        #expect(retainedTrace.contains("discovery could not read some references"))
    }
}
