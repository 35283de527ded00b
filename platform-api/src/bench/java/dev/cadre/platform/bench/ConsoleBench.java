package dev.cadre.platform.bench;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.HeadlessChromium;
import dev.cadre.platform.support.PlatformProcess;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

/**
 * Part 3: a real run whose stored trace has about 500 nodes (an orchestrator delegating to 71
 * workers that each call a tool three times), its run detail page opened in headless Chromium, and
 * the time from navigation start to the first node and to all nodes rendered, measured inside the
 * page (a MutationObserver installed before any page script, timestamps from performance.now(),
 * whose origin is the navigation start). Then whether the page stays usable: scrolling the whole
 * chain, expanding/collapsing, selecting a node.
 */
final class ConsoleBench {

    /** Row height of calltree.js (ROW): the tree's spacer is rows x this tall. */
    static final int ROW_PX = 30;

    private final PlatformProcess platform;
    private final Http http;
    private final int runs;
    private final Path out;
    final List<String> report = new ArrayList<>();

    ConsoleBench(PlatformProcess platform, int runs, Path out) {
        this.platform = platform;
        this.http = new Http(platform.base(), Api.ADMIN_KEY);
        this.runs = runs;
        this.out = out;
    }

    void runAll() throws Exception {
        // 1. A real run with a ~500-node call chain.
        long t0 = System.nanoTime();
        String id = http.post("/api/v1/runs", "{\"agent\":\"chain-orchestrator\",\"input\":\"check every shard\"}")
                .json()
                .get("id")
                .asString();
        String status;
        do {
            Thread.sleep(100);
            status = http.get("/api/v1/runs/" + id).json().get("status").asString();
        } while (!status.matches("completed|failed|canceled|rejected"));
        double runSeconds = (System.nanoTime() - t0) / 1e9;
        if (!status.equals("completed")) {
            throw new IllegalStateException("the chain run ended " + status);
        }
        // Spans are stored shortly after they end: wait until the count stops growing.
        JsonNode trace = http.get("/api/v1/runs/" + id + "/trace").json();
        int spans = -1;
        for (int i = 0; i < 50 && spans != trace.get("spanCount").asInt(); i++) {
            spans = trace.get("spanCount").asInt();
            Thread.sleep(300);
            trace = http.get("/api/v1/runs/" + id + "/trace").json();
        }
        Map<String, Integer> kinds = new TreeMap<>();
        int nodes = 0;
        for (JsonNode root : trace.get("roots")) {
            nodes += count(root, kinds);
        }
        int traceBytes = http.get("/api/v1/runs/" + id + "/trace").body().length();
        log(
                "chain run %s: completed in %.2f s (submit to completed, polled every 100 ms); trace: %d spans, %d nodes"
                        + " (%s), %d roots, %,d bytes of JSON",
                id,
                runSeconds,
                trace.get("spanCount").asInt(),
                nodes,
                kinds,
                trace.get("roots").size(),
                traceBytes);
        if (nodes < 450) {
            throw new IllegalStateException("expected about 500 nodes, got " + nodes);
        }

        // 2. The browser.
        Path profile = Files.createTempDirectory("cadre-bench-chromium-");
        ChromeOptions options = HeadlessChromium.options(profile);
        ChromeDriver browser = new ChromeDriver(
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(new File("/usr/bin/chromedriver"))
                        .build(),
                options);
        try {
            measure(browser, id, nodes, kinds);
        } finally {
            browser.quit();
        }
    }

    private void measure(ChromeDriver browser, String id, int nodes, Map<String, Integer> kinds) throws Exception {
        JavascriptExecutor js = browser;
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(60));
        browser.get(platform.base() + "/");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")))
                .sendKeys(Api.ADMIN_KEY);
        browser.findElement(By.id("login")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-testid=whoami]")));
        browser.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", probe(nodes)));

        // 3. Navigation start → first node, all nodes; one discarded warm-up navigation, then `runs`.
        Map<String, List<Double>> load = new LinkedHashMap<>();
        for (int i = 0; i <= runs; i++) {
            browser.get("about:blank");
            browser.get(platform.base() + "/#/runs/" + id);
            wait.until(d ->
                    Boolean.TRUE.equals(js.executeScript("return !!(window.__bench && window.__bench.allPainted)")));
            @SuppressWarnings("unchecked")
            Map<String, Object> b = (Map<String, Object>) js.executeScript("""
                    const b = window.__bench;
                    const nav = performance.getEntriesByType('navigation')[0];
                    const trace = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/trace'));
                    const run = performance.getEntriesByType('resource').find((e) => /\\/api\\/v1\\/runs\\/[^/]+$/.test(e.name));
                    const lt = b.longTasks.filter(([s]) => s <= b.allPainted);
                    return { first: b.first, firstPainted: b.firstPainted, all: b.all, allPainted: b.allPainted,
                      dcl: nav.domContentLoadedEventEnd, runFetched: run ? run.responseEnd : -1,
                      traceFetched: trace ? trace.responseEnd : -1, traceStart: trace ? trace.requestStart : -1,
                      longTaskMs: lt.reduce((a, [, d]) => a + d, 0), longTasks: lt.length,
                      longestTaskMs: lt.reduce((a, [, d]) => Math.max(a, d), 0),
                      rowsInDom: document.querySelectorAll('#call-tree .tree-row').length };
                    """);
            String line = Measure.fmt(
                    "%s navigation: DOMContentLoaded %.0f ms, run JSON %.0f ms, trace JSON %.0f ms (requested at %.0f),"
                            + " first node %.0f ms (painted %.0f), all %d nodes %.0f ms (painted %.0f); long tasks %s x,"
                            + " %.0f ms total, longest %.0f ms; %s rows in the DOM",
                    i == 0 ? "warm-up" : "run " + i,
                    num(b, "dcl"),
                    num(b, "runFetched"),
                    num(b, "traceFetched"),
                    num(b, "traceStart"),
                    num(b, "first"),
                    num(b, "firstPainted"),
                    nodes,
                    num(b, "all"),
                    num(b, "allPainted"),
                    b.get("longTasks"),
                    num(b, "longTaskMs"),
                    num(b, "longestTaskMs"),
                    b.get("rowsInDom"));
            log("%s", line);
            if (i > 0) {
                for (String k : List.of(
                        "dcl",
                        "traceFetched",
                        "first",
                        "firstPainted",
                        "all",
                        "allPainted",
                        "longTaskMs",
                        "longestTaskMs")) {
                    load.computeIfAbsent(k, x -> new ArrayList<>()).add(num(b, k));
                }
            }
        }
        Files.write(out.resolve("console-500-nodes.png"), browser.getScreenshotAs(OutputType.BYTES));

        // 4. The DOM condition verified: scrolling the virtualised tree from top to bottom meets every
        // node exactly once, with the kinds the API reported.
        @SuppressWarnings("unchecked")
        Map<String, Object> seen = (Map<String, Object>) js.executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                const sc = document.getElementById('call-tree');
                const keys = new Map();
                sc.scrollTop = 0;
                const step = () => {
                  for (const r of sc.querySelectorAll('.tree-row')) keys.set(r.dataset.key, r.dataset.kind);
                  if (sc.scrollTop + sc.clientHeight >= sc.scrollHeight - 1) {
                    const kinds = {};
                    for (const k of keys.values()) kinds[k] = (kinds[k] || 0) + 1;
                    done({ distinct: keys.size, kinds });
                    return;
                  }
                  sc.scrollTop += sc.clientHeight / 2;
                  requestAnimationFrame(() => setTimeout(step, 0));
                };
                step();
                """);
        log(
                "verified by scrolling the tree: %s distinct nodes rendered, by kind %s (API: %d nodes, %s)",
                seen.get("distinct"), seen.get("kinds"), nodes, kinds);
        if (((Number) seen.get("distinct")).intValue() != nodes) {
            throw new IllegalStateException(
                    "the tree rendered " + seen.get("distinct") + " nodes, the API has " + nodes);
        }

        // 5. Usable? Scroll the whole chain frame by frame, collapse/expand all, toggle one node,
        // select one node; each `runs` times, time to the next frame after the action.
        Map<String, List<Double>> use = new LinkedHashMap<>();
        for (int i = 0; i < runs; i++) {
            @SuppressWarnings("unchecked")
            Map<String, Object> s = (Map<String, Object>) js.executeAsyncScript("""
                    const done = arguments[arguments.length - 1];
                    const sc = document.getElementById('call-tree');
                    sc.scrollTop = 0;
                    const frames = [];
                    let last = null;
                    const t0 = performance.now();
                    const step = (ts) => {
                      if (last !== null) frames.push(ts - last);
                      last = ts;
                      if (sc.scrollTop + sc.clientHeight >= sc.scrollHeight - 1) {
                        frames.sort((a, b) => a - b);
                        done({ total: performance.now() - t0, frames: frames.length,
                          p50: frames[Math.floor(frames.length / 2)], max: frames[frames.length - 1] });
                        return;
                      }
                      sc.scrollTop += 120;
                      requestAnimationFrame(step);
                    };
                    requestAnimationFrame(step);
                    """);
            use.computeIfAbsent("scroll: whole chain, 120 px per frame (ms total)", k -> new ArrayList<>())
                    .add(num(s, "total"));
            use.computeIfAbsent("scroll: median frame interval (ms)", k -> new ArrayList<>())
                    .add(num(s, "p50"));
            use.computeIfAbsent("scroll: longest frame interval (ms)", k -> new ArrayList<>())
                    .add(num(s, "max"));
            use.computeIfAbsent("collapse all (ms to next frame)", k -> new ArrayList<>())
                    .add(action(
                            js,
                            "[...document.querySelectorAll('button')].find((b) => b.textContent === 'Collapse all').click()",
                            "return document.querySelectorAll('#call-tree .tree-row').length === 1"));
            use.computeIfAbsent("expand all (ms to next frame)", k -> new ArrayList<>())
                    .add(action(
                            js,
                            "[...document.querySelectorAll('button')].find((b) => b.textContent === 'Expand all').click()",
                            "return document.querySelector('#call-tree .tree-spacer').style.height === '"
                                    + nodes * ROW_PX + "px'"));
            // Toggle the first worker call (a tool node with a subagent below it), twice: closed, open.
            js.executeScript("document.getElementById('call-tree').scrollTop = 0");
            use.computeIfAbsent("collapse one worker call (ms to next frame)", k -> new ArrayList<>())
                    .add(action(
                            js,
                            "document.querySelector('#call-tree .tree-row[data-kind=tool][aria-expanded=true] .twisty').click()",
                            "return document.querySelector('#call-tree .tree-spacer').style.height !== '"
                                    + nodes * ROW_PX + "px'"));
            use.computeIfAbsent("expand it again (ms to next frame)", k -> new ArrayList<>())
                    .add(action(
                            js,
                            "document.querySelector('#call-tree .tree-row[data-kind=tool][aria-expanded=false] .twisty').click()",
                            "return document.querySelector('#call-tree .tree-spacer').style.height === '"
                                    + nodes * ROW_PX + "px'"));
            use.computeIfAbsent("select a model node: details shown (ms to next frame)", k -> new ArrayList<>())
                    .add(action(
                            js,
                            "document.querySelectorAll('#call-tree .tree-row[data-kind=model] .name')[" + (i + 1)
                                    + "].click()",
                            "return document.querySelector('#node-detail .kind-model') !== null"));
        }

        // 6. Report.
        report.add("| measure (headless Chromium, " + nodes + "-node completed run, " + runs
                + " navigations) | median ms | runs (ms) |");
        report.add("|---|---:|---|");
        Map<String, String> names = new LinkedHashMap<>();
        names.put("dcl", "DOMContentLoaded");
        names.put("traceFetched", "trace JSON received (GET /runs/{id}/trace responseEnd)");
        names.put("first", "first node in the DOM");
        names.put("firstPainted", "first node, next frame after it");
        names.put("all", "all nodes rendered (DOM condition met)");
        names.put("allPainted", "all nodes, next frame after it");
        names.put("longTaskMs", "main-thread long tasks (> 50 ms) until then, total");
        names.put("longestTaskMs", "longest main-thread task");
        names.forEach((k, label) -> report.add(row(label, load.get(k))));
        report.add("");
        report.add("| usability on the loaded page | median ms | runs (ms) |");
        report.add("|---|---:|---|");
        use.forEach((label, values) -> report.add(row(label, values)));
    }

    /** Runs {@code action}, then waits for the next frame after {@code condition} holds; returns the ms in between. */
    private static double action(JavascriptExecutor js, String action, String condition) {
        Object r = js.executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                const cond = new Function(arguments[1]);
                const t0 = performance.now();
                new Function(arguments[0])();
                const wait = () => {
                  if (cond()) requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0), 0));
                  else if (performance.now() - t0 > 10000) done(-1);
                  else requestAnimationFrame(wait);
                };
                wait();
                """, action, condition);
        double ms = ((Number) r).doubleValue();
        if (ms < 0) {
            throw new IllegalStateException("condition never held after: " + action);
        }
        return ms;
    }

    /** The in-page probe, installed before any page script runs. */
    private static String probe(int nodes) {
        return """
                (() => {
                  const N = %d, ROW = %d;
                  const b = window.__bench = { first: null, firstPainted: null, all: null, allPainted: null, longTasks: [] };
                  try {
                    new PerformanceObserver((l) => { for (const e of l.getEntries()) b.longTasks.push([e.startTime, e.duration]); })
                      .observe({ type: 'longtask', buffered: true });
                  } catch (e) { /* no long-task API */ }
                  const painted = (k) => requestAnimationFrame(() => setTimeout(() => { b[k] = performance.now(); }, 0));
                  let obs = null;
                  const check = () => {
                    if (b.first === null && document.querySelector('#call-tree .tree-row')) { b.first = performance.now(); painted('firstPainted'); }
                    if (b.all === null) {
                      const info = document.getElementById('chain-info');
                      const spacer = document.querySelector('#call-tree .tree-spacer');
                      if (info && spacer && info.textContent.startsWith(N + ' nodes') && spacer.style.height === (N * ROW) + 'px'
                          && document.querySelector('#call-tree .tree-row') && !document.querySelector('#call-tree .tree-row[data-status=running]')) {
                        b.all = performance.now(); painted('allPainted'); obs.disconnect();
                      }
                    }
                  };
                  obs = new MutationObserver(check);
                  obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
                })();
                """.formatted(nodes, ROW_PX);
    }

    private static int count(JsonNode node, Map<String, Integer> kinds) {
        kinds.merge(node.get("kind").asString(), 1, Integer::sum);
        int n = 1;
        for (JsonNode c : node.get("children")) {
            n += count(c, kinds);
        }
        return n;
    }

    private static double num(Map<String, Object> m, String k) {
        Object v = m.get(k);
        return v == null ? Double.NaN : ((Number) v).doubleValue();
    }

    private static String row(String label, List<Double> values) {
        StringBuilder runs = new StringBuilder();
        for (double v : values) {
            runs.append(runs.isEmpty() ? "" : ", ").append(Measure.fmt("%.0f", v));
        }
        return Measure.fmt("| %s | %.0f | %s |", label, dev.cadre.memory.bench.ClosedLoop.median(values), runs);
    }

    private void log(String format, Object... args) {
        String line = Measure.fmt(format, args);
        System.out.println("  console  " + line);
        report.add("- " + line);
    }
}
