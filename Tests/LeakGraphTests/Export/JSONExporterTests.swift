import LeakGraph
import Testing

@Suite("JSONExporter")
struct JSONExporterTests {
    @Test("the dump's bytes are exactly the documented format: field order, separators, one record per line")
    func goldenBytes() {
        let snapshot = GraphSnapshot(
            objects: [
                ObjectInfo(
                    id: 1, type: "Parent", label: "main \"screen\"", strongRetainCount: 1, stack: 0, time: 12.5,
                    state: .active, scope: 3),
                ObjectInfo(id: 2, type: "Child", strongRetainCount: 1),
            ],
            edges: [
                EdgeInfo(from: 1, to: 2, label: "child", count: 2, site: 0),
                EdgeInfo(from: 2, to: 1, label: "capture", origin: .captured, closure: "closure #1 in f()"),
                EdgeInfo(from: 2, to: 1, kind: .weak, label: "parent", origin: .reflected),
            ],
            stacks: [StackInfo(id: 0, frames: ["f() at A.swift:1", "main"], userFrame: 0)],
            time: 100)
        let report = LeakReport(
            cycles: [
                Cycle(
                    objects: [1, 2], leaked: true, signature: "Child -capture-> Parent",
                    path: [.init(from: 2, to: 1, label: "capture"), .init(from: 1, to: 2, label: "child")],
                    loopDescription: "Child —capture→ Parent —child→ Child",
                    unexplainedHolders: [.init(object: 1, unexplained: 1, knownHolders: [2, 3])])
            ],
            leakedObjectIDs: [1, 2], unknownOwners: [UnknownOwner(object: 2, unexplained: 1)])
        let expected =
            #"{"format":"leakgraph","version":1,"pid":42,"time":100.000,"# + "\n"
            + #""objects":["# + "\n"
            + #"{"id":1,"type":"Parent","label":"main \"screen\"","strongRetainCount":1,"stack":0,"time":12.500,"#
            + #""state":"active","scope":3,"leaked":true,"processWide":false,"keepsAlive":0},"# + "\n"
            + #"{"id":2,"type":"Child","label":null,"strongRetainCount":1,"stack":null,"time":0.000,"#
            + #""state":"unspecified","scope":0,"leaked":true,"processWide":false,"keepsAlive":1}],"# + "\n"
            + #""edges":["# + "\n"
            + #"{"from":1,"to":2,"kind":"strong","label":"child","origin":"declared","count":2,"site":0,"closure":null},"#
            + "\n"
            + #"{"from":2,"to":1,"kind":"strong","label":"capture","origin":"captured","count":1,"site":null,"#
            + #""closure":"closure #1 in f()"},"# + "\n"
            + #"{"from":2,"to":1,"kind":"weak","label":"parent","origin":"reflected","count":1,"site":null,"#
            + #""closure":null}],"# + "\n"
            + #""stacks":["# + "\n"
            + #"{"id":0,"frames":["f() at A.swift:1","main"],"userFrame":0}],"# + "\n"
            + #""cycles":["# + "\n"
            + #"{"objects":[1,2],"leaked":true,"signature":"Child -capture-> Parent","#
            + #""path":[{"from":2,"to":1,"label":"capture"},{"from":1,"to":2,"label":"child"}],"#
            + #""loop":"Child —capture→ Parent —child→ Child","#
            + #""unexplainedHolders":[{"object":1,"unexplained":1,"knownHolders":[2,3]}]}],"# + "\n"
            + #""unknownOwners":[{"object":2,"unexplained":1}],"neverFinished":[],"canNeverFinish":[]}"# + "\n"
        let written = JSONExporter.render(snapshot, report: report, processID: 42)
        #expect(written == expected)
    }

    @Test("empty sections are empty arrays and a missing pid is left out")
    func emptyDump() {
        let written = JSONExporter.render(
            GraphSnapshot(objects: [], edges: []), report: LeakReport(cycles: [], leakedObjectIDs: []))
        #expect(
            written
                == #"{"format":"leakgraph","version":1,"time":0.000,"# + "\n" + #""objects":[],"# + "\n"
                + #""edges":[],"# + "\n" + #""stacks":[],"# + "\n" + #""cycles":[],"# + "\n"
                + #""unknownOwners":[],"neverFinished":[],"canNeverFinish":[]}"# + "\n")
    }
}
