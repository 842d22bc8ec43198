import Foundation
import LeakGraph
import LeakGraphCLI
import Testing

/// The HTML report looked at as a person would: in a real headless browser at 100 %, measuring
/// the text of every graph and the page's layout. Runs where Chromium is installed (CI installs it).
@Suite("leakgraph html in a real browser")
struct HTMLBrowserTests {
    static let chromium: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for folder in path.split(separator: ":")
            where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return "\(folder)/\(name)"
            }
        }
        return nil
    }()

    let directory = makeTemporaryDirectory("browser")
    let loader = DumpLoader(console: ConsoleCapture().console)

    /// A dump whose loop has six members with long generic type names and long sites: the
    /// shapes that made unreadable pictures.
    static var longLoop: GraphBuilder {
        var graph = GraphBuilder()
        let names = [
            "AnonymousObservableSink<MapSink<Int, AnonymousObserver<Int>>>", "SinkDisposer",
            "FlatMapLatestSink<String, Observable<Result<[SearchResult], NetworkError>>>", "ReplaySubject<Int>",
            "RefCountSink<AnonymousObserver<Dictionary<String, Array<Optional<Int>>>>>",
            "ConnectableObservableAdapter<ReplaySubject<Int>>",
        ]
        let ids = names.enumerated().map { index, name in
            graph.object(
                name,
                site: "closure #\(index + 1) in variable initialization expression of static Scenarios.all "
                    + "at Tools/Demo/Scenarios.swift:\(40 + index)")
        }
        for (index, id) in ids.enumerated() {
            graph.edge(id, ids[(index + 1) % ids.count], ["sink", "cancel", "observer", "subscription"][index % 4])
        }
        // A second loop through the same members, and an object only the leak keeps alive.
        graph.edge(ids[3], ids[0], "observers")
        let kept = graph.object("AnonymousObserver<Int>", site: "subscribe(onNext:) at Sources/App/App.swift:7")
        graph.edge(ids[2], kept, "observer")
        return graph
    }

    /// Runs Chromium headless on `page` with a measuring script appended, and returns what the
    /// script found.
    private func measure(_ page: String, width: Int = 1280, height: Int = 1000) throws -> [String: Double] {
        let chromium = try #require(Self.chromium)
        let script = """
            <script>
            (function(){
              var minSVG=1e9, minHTML=1e9, svgCount=0, squeezed=0;
              document.querySelectorAll('svg text').forEach(function(t){
                var size=parseFloat(t.getAttribute('font-size')||getComputedStyle(t).fontSize);
                var m=t.getScreenCTM(); if(!m) return;
                minSVG=Math.min(minSVG, size*Math.hypot(m.a,m.b));
              });
              document.querySelectorAll('body *').forEach(function(e){
                if(e.closest('svg')||e.tagName==='SCRIPT'||e.tagName==='STYLE') return;
                var direct=Array.prototype.some.call(e.childNodes,function(n){return n.nodeType===3&&n.textContent.trim();});
                if(direct&&e.getClientRects().length) minHTML=Math.min(minHTML, parseFloat(getComputedStyle(e).fontSize));
              });
              // A graph is squeezed when it is scaled below 100 % though it did not need to be (it
              // fitted) or further than its smallest text allows (10 px); clipped when it is wider
              // than its viewport though it could have been fitted with its text at 10 px or more.
              var clipped=0, scaled=0;
              document.querySelectorAll('figure.graph').forEach(function(f){
                var s=f.querySelector('svg'), view=f.querySelector('.viewport'); if(!s||!view) return;
                svgCount++;
                var natural=s.width.baseVal.value, shown=s.getBoundingClientRect().width, scale=shown/natural;
                var small=1e9;
                s.querySelectorAll('text').forEach(function(t){
                  var m=t.getScreenCTM(); if(!m) return;
                  small=Math.min(small, parseFloat(t.getAttribute('font-size')||getComputedStyle(t).fontSize)*Math.hypot(m.a,m.b));
                });
                var fits=natural<=view.clientWidth+1;
                if(scale<0.99) scaled++;
                if(scale<0.99&&(fits||small<9.9)) squeezed++;
                if(shown>view.clientWidth+1&&small>10.5) clipped++;
              });
              // The legend's entries, as Chromium draws them: no text box may overlap another.
              var overlaps=0, legendTexts=0;
              document.querySelectorAll('g.node').forEach(function(g){
                var title=g.querySelector('title'); if(!title||title.textContent!=='legend') return;
                var boxes=Array.prototype.map.call(g.querySelectorAll('text'),function(t){return t.getBoundingClientRect();});
                legendTexts+=boxes.length;
                for(var i=0;i<boxes.length;i++) for(var j=i+1;j<boxes.length;j++){
                  var a=boxes[i], b=boxes[j];
                  if(a.left<b.right-0.5&&b.left<a.right-0.5&&a.top<b.bottom-0.5&&b.top<a.bottom-0.5) overlaps++;
                }
              });
              var views=Array.prototype.map.call(document.querySelectorAll('.viewport'),function(v){return v.clientHeight;});
              var out=document.createElement('pre'); out.id='leakgraph-measurements';
              out.textContent=JSON.stringify({minSVGTextPx:minSVG, minHTMLTextPx:minHTML, graphs:svgCount,
                squeezed:squeezed, clipped:clipped, scaled:scaled, pageWidth:document.documentElement.scrollWidth,
                minViewportHeight:views.length?Math.min.apply(null,views):0,
                legendTexts:legendTexts, legendOverlaps:overlaps,
                ids:document.querySelectorAll('[id]').length,
                uniqueIDs:new Set(Array.prototype.map.call(document.querySelectorAll('[id]'),function(e){return e.id;})).size});
              document.body.appendChild(out);
            })();
            </script>
            """
        let measured = page.replacingOccurrences(of: "</body>", with: script + "</body>")
        let path = writeFile(measured, "measured.html", in: directory)
        let dom = try run(
            chromium,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--window-size=\(width),\(height)", "--dump-dom",
                "file://" + path,
            ])
        let start = try #require(dom.range(of: "<pre id=\"leakgraph-measurements\">"), "the script ran")
        let rest = dom[start.upperBound...]
        let end = try #require(rest.range(of: "</pre>"))
        let json = String(rest[..<end.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"")
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return (object ?? [:]).compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }

    private func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = directory + "/browser-out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(90)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self)
    }

    @Test(
        "a wide graph opens fitted to its column as far as its text stays 10 px; the page never scrolls sideways",
        .enabled(if: chromium != nil && GraphRenderer.graphviz.isAvailable, "needs Chromium and Graphviz"))
    func wideGraphsOpenFittedAndReadable() throws {
        let path = writeFile(Self.longLoop.json(), "long.json", in: directory)
        let written = try HTMLCommand.write(dump: path, loader: loader, renderer: .graphviz)
        let found = try measure(try String(contentsOfFile: written, encoding: .utf8))
        #expect(found["graphs"] == 1)
        #expect(found["squeezed"] == 0, "graphs are scaled down only as far as their text stays 10 px: \(found)")
        #expect(found["clipped"] == 0, "a graph that can be fitted readably opens fitted: \(found)")
        #expect((found["minSVGTextPx"] ?? 0) >= 10, "\(found)")
        #expect((found["minHTMLTextPx"] ?? 0) >= 10, "\(found)")
        #expect((found["pageWidth"] ?? .infinity) <= 1280, "wide graphs pan inside their viewport: \(found)")
        #expect((found["minViewportHeight"] ?? 0) >= 150, "\(found)")
        #expect(found["ids"] == found["uniqueIDs"], "no duplicate ids: \(found)")
        #expect((found["legendTexts"] ?? 0) >= 10, "the legend is drawn: \(found)")
        #expect(found["legendOverlaps"] == 0, "no legend entry runs into another: \(found)")
    }

    @Test(
        "several graphs on one page keep unique ids and readable text on a narrow window",
        .enabled(if: chromium != nil && GraphRenderer.graphviz.isAvailable, "needs Chromium and Graphviz"))
    func severalGraphsOnANarrowWindow() throws {
        var graph = Self.longLoop
        let model = graph.object("ViewModel", site: "Screen.init() at Sources/App/Screen.swift:9")
        let flatMap = graph.object("FlatMap<Int>", site: "ViewModel.bind() at Sources/App/ViewModel.swift:12")
        graph.edge(model, flatMap, "signal")
        graph.edge(flatMap, model, "capture", closure: "closure #1 in ViewModel.bind()")
        let path = writeFile(graph.json(), "two.json", in: directory)
        let page = try String(
            contentsOfFile: try HTMLCommand.write(dump: path, loader: loader, renderer: .graphviz), encoding: .utf8)
        let found = try measure(page, width: 700, height: 900)
        #expect(found["graphs"] == 2)
        #expect((found["scaled"] ?? 0) >= 1, "a graph wider than the window opens fitted: \(found)")
        #expect(found["squeezed"] == 0, "\(found)")
        #expect(found["clipped"] == 0, "\(found)")
        #expect((found["minSVGTextPx"] ?? 0) >= 10, "\(found)")
        #expect(found["ids"] == found["uniqueIDs"], "\(found)")
    }

    @Test(
        "a screenshot of the report has the window's size and shows the verdicts first",
        .enabled(if: chromium != nil && GraphRenderer.graphviz.isAvailable, "needs Chromium and Graphviz"))
    func screenshot() throws {
        let chromium = try #require(Self.chromium)
        let path = writeFile(Self.longLoop.json(), "long.json", in: directory)
        let written = try HTMLCommand.write(dump: path, loader: loader, renderer: .graphviz)
        let page = try String(contentsOfFile: written, encoding: .utf8)
        let verdicts = try #require(page.range(of: "<ol class=\"verdicts\">"))
        let firstGraph = try #require(page.range(of: "<svg"))
        #expect(verdicts.lowerBound < firstGraph.lowerBound)
        let png = directory + "/report.png"
        _ = try run(
            chromium,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,900",
                "--screenshot=" + png, "file://" + written,
            ])
        let data = try #require(FileManager.default.contents(atPath: png), "Chromium wrote a screenshot")
        // PNG: width and height are big-endian at bytes 16 and 20 of the IHDR chunk.
        try #require(data.count > 24)
        let bytes = [UInt8](data.prefix(24))
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1280 && height == 900)
        #expect(data.count > 20_000, "the screenshot shows something (\(data.count) bytes)")
    }
}
