package dev.cadre.platform.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.cadre.platform.replay.CaseFile;
import dev.cadre.platform.replay.IncidentCase;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.HeadlessChromium;
import dev.cadre.platform.support.PlatformTest;
import dev.cadre.platform.support.TestTools;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * The console in a real headless Chromium against the running application: what an operator does
 * at 3 a.m., end to end. One browser serves the whole class; screenshots land in
 * target/screenshots.
 */
@PlatformTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {

    private static final Path CHROMIUM = HeadlessChromium.CHROMIUM;
    private static final Path CHROMEDRIVER = HeadlessChromium.CHROMEDRIVER;
    private static final Path SHOTS = Path.of("target", "screenshots");

    @LocalServerPort
    int port;

    /** A failing step leaves a picture of what the browser showed. */
    @RegisterExtension
    final TestWatcher screenshotOnFailure = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            if (browser != null) {
                shot("FAILED-" + context.getRequiredTestMethod().getName());
            }
        }
    };

    Api api;
    WebDriver browser;
    WebDriverWait wait;
    Path profile;

    @BeforeAll
    void startBrowser() throws IOException {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            fail("Chromium is missing: the console browser tests need Debian's chromium and chromium-driver"
                    + " (" + CHROMIUM + ", " + CHROMEDRIVER + "). Install them with:"
                    + " apt-get install -y chromium chromium-driver");
        }
        profile = Files.createTempDirectory("cadre-chromium-");
        ChromeOptions options = HeadlessChromium.options(profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER.toString()))
                .build();
        browser = new ChromeDriver(service, options);
        // Live pages re-render what they follow; a row replaced mid-read is read again.
        wait = new WebDriverWait(browser, Duration.ofSeconds(60));
        wait.ignoring(StaleElementReferenceException.class);
        Files.createDirectories(SHOTS);
    }

    @AfterAll
    void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    @Test
    @Order(1)
    void logIn_showsWhoIAmAndMyRole_andRefusesAnUnknownKey() {
        open("/");
        WebElement key = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        shot("login");
        key.sendKeys("not-a-key");
        browser.findElement(By.id("login")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("login-error"), "unknown or revoked"));
        key.clear();
        logIn(Api.ADMIN_KEY);
        WebElement who = browser.findElement(By.cssSelector("[data-testid=whoami]"));
        assertThat(who.getText()).contains("admin");
        assertThat(browser.findElement(By.id("viewer-banner")).isDisplayed()).isFalse();
    }

    @Test
    @Order(2)
    void submitDemoRun_watchItCompleteLive_andFindSubagentsWithTokensAndTools() {
        ensureLoggedIn();
        go("#/submit?agent=ops-orchestrator");
        WebElement input = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("submit-input")));
        assertThat(new Select(browser.findElement(By.id("submit-agent")))
                        .getFirstSelectedOption()
                        .getAttribute("value"))
                .isEqualTo("ops-orchestrator");
        input.sendKeys("check host web-1: pages are slow");
        shot("submit");
        browser.findElement(By.id("submit-run")).click();

        wait.until(ExpectedConditions.urlContains("#/runs/"));
        String runId = browser.getCurrentUrl().replaceAll(".*#/runs/", "");
        // The page follows the run's event stream: the status flips to completed without a reload.
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run-status"), "completed"));
        wait.until(d -> d.findElements(By.cssSelector("#event-log li")).stream()
                .anyMatch(li -> li.getAttribute("textContent").contains("subagent_started")));
        assertThat((String) js("return document.getElementById('event-log').textContent;"))
                .contains("done");

        // The call chain has the three subagents, each with its tokens, and the orchestrator's tools.
        // Rows are re-rendered while the page follows the run, so they are read in one script call.
        for (String worker : List.of("cpu-inspector", "memory-inspector", "disk-inspector")) {
            String row = wait.until(d -> treeRow("agent, " + worker + ","));
            assertThat(row).contains("tokens in");
            assertThat(row.substring(row.indexOf('|') + 1)).matches("\\d.*↓ \\d.*↑");
        }
        // The root agent's span (with its tools) is stored a moment after the run ends; the page
        // keeps polling the trace briefly past the end, so wait for it rather than race it.
        String orchestrator = wait.until(d -> {
            String row = treeRow("agent, ops-orchestrator,");
            return row != null && row.contains("tools") ? row : null;
        });
        assertThat(orchestrator).contains("cpu-inspector");
        assertThat(browser.findElements(By.cssSelector("#call-tree [data-kind=tool]")))
                .isNotEmpty();
        assertThat(browser.findElements(By.cssSelector("#call-tree [data-kind=model]")))
                .isNotEmpty();

        // A node opens its details.
        js(
                "[...document.querySelectorAll('#call-tree [data-kind=agent]')]"
                        + ".find((r) => r.getAttribute('aria-label').startsWith(arguments[0])).click()",
                "agent, disk-inspector,");
        // The page re-renders while it follows the run, so everything is read in single script
        // calls (an element found in one call may be replaced before the next).
        String detail = wait.until(d -> {
            Object text = js("const e = document.getElementById('node-detail'); return e && e.innerText;");
            // "Own tokens in / out" for an agent (its own model calls), "Tokens in / out" for a model call.
            return text instanceof String t && t.contains("okens in / out") && t.contains("disk-inspector") ? t : null;
        });
        assertThat(detail).contains("disk-inspector");
        // A subagent's task is the argument of the worker call that spawned it.
        String task = (String)
                js("const e = document.querySelector('#node-detail .node-input'); return e ? e.innerText : '';");
        assertThat(task).isNotBlank();
        // The answer and each worker's outcome.
        @SuppressWarnings("unchecked")
        List<String> workers = wait.until(d -> {
            List<String> w = (List<String>)
                    js(
                            "return [...document.querySelectorAll('#subagents tr[data-worker]')].map((r) => r.getAttribute('data-worker'));");
            return w != null && w.size() >= 3 ? w : null;
        });
        assertThat(workers).contains("cpu-inspector", "memory-inspector", "disk-inspector");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#run-result")));
        shot("run-detail");
        assertThat(runId).isNotBlank();
    }

    @Test
    @Order(3)
    void approvePendingActionFromTheQueue_withEditedArguments_andSeeTheRunFinish() {
        ensureLoggedIn();
        String runId = submit("fixer", "restart the api");
        JsonNode approval = awaitPendingApproval(runId);
        String id = approval.get("id").asString();

        go("#/approvals");
        WebElement card = wait.until(
                ExpectedConditions.visibilityOfElementLocated(By.cssSelector("article[data-approval='" + id + "']")));
        assertThat(card.getText()).contains("restart_service").contains("fixer");
        WebElement args = card.findElement(By.cssSelector("textarea.edited-args"));
        args.sendKeys("{\"service\": \"api\",");
        WebElement approve = card.findElement(By.cssSelector("button.approve"));
        wait.until(
                d -> card.findElement(By.cssSelector(".field-error")).getText().contains("Not valid JSON"));
        assertThat(approve.isEnabled()).isFalse();
        shot("approvals");

        args.clear();
        args.sendKeys("{\"service\": \"api\", \"host\": \"web-2\"}");
        wait.until(ExpectedConditions.elementToBeClickable(approve));
        card.findElement(By.cssSelector("input.comment")).sendKeys("looks right, web-2 is the stuck one");
        approve.click();

        Await.until(
                "approval " + id + " to be decided",
                () -> api.get("/api/v1/approvals/" + id, Api.ADMIN_KEY).json(),
                a -> a.get("status").asString().equals("approved"));
        go("#/runs/" + runId);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run-status"), "completed"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run-result"), "restarted api"));
        JsonNode decided = api.get("/api/v1/approvals/" + id, Api.ADMIN_KEY).json();
        assertThat(decided.get("editedArguments").get("host").asString()).isEqualTo("web-2");
        assertThat(decided.get("decidedBy").asString()).isNotBlank();
    }

    @Test
    @Order(4)
    void openAMemoryKeysHistory_withWhoWroteEachVersion() {
        ensureLoggedIn();
        // Two writers, two versions: the history must tell them apart and show what changed.
        String operator = newKey("night-operator", "operator");
        var first = api.send(
                "PUT",
                "/api/v1/memory/runbooks/api-restart",
                Api.ADMIN_KEY,
                "{\"steps\":[\"drain\",\"restart\"],\"owner\":\"platform\"}",
                Map.of("If-None-Match", "*"));
        assertThat(first.status()).as(first.body()).isEqualTo(201);
        var second = api.send(
                "PUT",
                "/api/v1/memory/runbooks/api-restart",
                operator,
                "{\"steps\":[\"drain\",\"restart\",\"verify\"],\"owner\":\"platform\"}",
                Map.of("If-Match", "\"1\""));
        assertThat(second.status()).as(second.body()).isEqualTo(200);

        go("#/memory");
        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#namespaces a[data-ns=runbooks]")))
                .click();
        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#keys a[data-key=api-restart]")))
                .click();
        wait.until(
                d -> d.findElements(By.cssSelector("#memory-history .version")).size() == 2);
        List<WebElement> versions = browser.findElements(By.cssSelector("#memory-history .version"));
        assertThat(versions.get(0).getAttribute("data-version")).isEqualTo("2");
        assertThat(versions.get(0).getText()).contains("night-operator");
        assertThat(versions.get(1).getText()).contains("bootstrap");
        assertThat(browser.findElements(By.cssSelector("#memory-history .diff .add")).stream()
                        .map(WebElement::getText))
                .anyMatch(t -> t.contains("verify"));
        assertThat(browser.findElement(By.id("memory-version")).getText()).isEqualTo("2");
        shot("memory");
    }

    @Test
    @Order(6)
    void overviewRunsAndAgentsPages_showTheirFigures() {
        ensureLoggedIn();
        go("#/overview");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("tile-runs")));
        wait.until(
                d -> !d.findElements(By.cssSelector("#chart-per-hour canvas")).isEmpty());
        assertThat(Long.parseLong(
                        browser.findElement(By.cssSelector("#tile-runs .v")).getText()))
                .isPositive();
        // Storage: one row per kind retention keeps, from GET /api/v1/stats/storage.
        wait.until(
                d -> d.findElements(By.cssSelector("#storage-table tbody tr")).size() == 5);
        assertThat(browser.findElement(By.id("storage")).getText())
                .contains("Storage")
                .contains("P90D");
        // The charts animate in; the screenshot waits until their canvases stop changing between two
        // polls of the wait, rather than for a guessed animation time.
        String[] lastFrame = {""};
        wait.until(d -> {
            String frame =
                    (String) js("return [...document.querySelectorAll('canvas')].map((c) => c.toDataURL()).join('|');");
            boolean settled = frame.equals(lastFrame[0]);
            lastFrame[0] = frame;
            return settled;
        });
        shot("overview");

        go("#/runs?status=completed");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#runs-table tbody tr[data-run]")));
        @SuppressWarnings("unchecked")
        List<String> statuses = (List<String>)
                js(
                        "return [...document.querySelectorAll('#runs-table tbody tr[data-run]')].map((r) => r.getAttribute('data-status'));");
        assertThat(statuses).isNotEmpty().allMatch("completed"::equals);
        shot("runs");

        go("#/agents");
        WebElement agent = wait.until(
                ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-agent=ops-orchestrator]")));
        assertThat(agent.getText()).contains("Completion").contains("Misrouted").contains("cpu-inspector");
        shot("agents");
    }

    @Test
    @Order(5)
    void aCallChainOfTwoThousandNodes_rendersOnlyTheRowsInView() {
        ensureLoggedIn();
        go("#/agents");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-agent]")));
        // 1 orchestrator, 50 subagents with 39 tool and model calls each: 2,001 nodes.
        @SuppressWarnings("unchecked")
        Map<String, Object> r = (Map<String, Object>) ((JavascriptExecutor) browser).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                import('/console/calltree.js').then(({ CallTree }) => {
                  const node = (key, kind, start, children = []) => ({ key, kind, label: key, name: key, status: 'ok',
                    startMs: start, durationMs: 40, inputTokens: 10, outputTokens: 5, toolsCalled: [], children,
                    searchText: key, hasFailure: false, hasAgentBelow: kind === 'agent' });
                  const workers = [];
                  for (let w = 0; w < 50; w++) {
                    const calls = [];
                    for (let c = 0; c < 39; c++) calls.push(node(`w${w}-c${c}`, c % 2 ? 'tool' : 'model', w * 100 + c));
                    workers.push(node(`worker-${w}`, 'agent', w * 100, calls));
                  }
                  const tree = new CallTree({ onSelect() {} });
                  document.getElementById('main').append(tree.el);
                  const t0 = performance.now();
                  tree.setData([node('root', 'agent', 0, workers)], { origin: 0, total: 6000 });
                  const ms = performance.now() - t0;
                  const inDom = tree.el.querySelectorAll('.tree-row').length;
                  tree.scroll.scrollTop = tree.scroll.scrollHeight;
                  tree.paint();
                  const last = tree.el.querySelector('[data-key="w49-c38"]') !== null;
                  done({ ms, rows: tree.rows.length, inDom, last });
                }).catch((e) => done({ error: String(e) }));
                """);
        assertThat(r).doesNotContainKey("error");
        assertThat(((Number) r.get("rows")).intValue()).isEqualTo(2001);
        assertThat(((Number) r.get("inDom")).intValue()).isLessThan(100);
        assertThat(r.get("last")).isEqualTo(true);
        assertThat(((Number) r.get("ms")).doubleValue())
                .as("ms to lay out 2,001 nodes")
                .isLessThan(1000);
    }

    @Test
    @Order(7)
    void aViewerSeesEverything_butEveryActionIsDisabledWithTheReason() {
        ensureLoggedIn();
        String viewerKey = newKey("night-viewer", "viewer");
        String slow = submit("slow", "think for a while");
        String fixer = submit("fixer", "restart for the viewer test");
        String approval = awaitPendingApproval(fixer).get("id").asString();

        browser.findElement(By.id("logout")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        logIn(viewerKey);
        assertThat(browser.findElement(By.cssSelector("[data-testid=whoami]")).getText())
                .contains("night-viewer")
                .contains("viewer");
        assertThat(browser.findElement(By.id("viewer-banner")).isDisplayed()).isTrue();

        go("#/submit");
        WebElement submit = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("submit-run")));
        assertThat(submit.isEnabled()).isFalse();
        assertThat(submit.getAttribute("title")).contains("viewer");

        go("#/approvals");
        WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("article[data-approval='" + approval + "']")));
        assertThat(card.findElement(By.cssSelector("button.approve")).isEnabled())
                .isFalse();
        assertThat(card.findElement(By.cssSelector("button.reject")).isEnabled())
                .isFalse();
        assertThat(card.getText()).contains("Read-only");

        go("#/runs/" + slow);
        WebElement cancel = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("cancel-run")));
        assertThat(cancel.isEnabled()).isFalse();
        shot("viewer");

        api.post("/api/v1/runs/" + slow + "/cancel", Api.ADMIN_KEY, "{}");
        api.post("/api/v1/approvals/" + approval + "/reject", Api.ADMIN_KEY, "{\"comment\":\"test cleanup\"}");
        browser.findElement(By.id("logout")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
    }

    @Test
    @Order(8)
    void startAnEvaluationOfTheShippedSuite_andReadItsReport() {
        ensureLoggedIn();
        go("#/evals");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("eval-suite")));
        WebElement repeat = browser.findElement(By.id("eval-repeat"));
        repeat.clear();
        repeat.sendKeys("1");
        browser.findElement(By.id("eval-start")).click();
        WebElement summary = new WebDriverWait(browser, Duration.ofSeconds(90))
                .ignoring(StaleElementReferenceException.class)
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("eval-summary")));
        assertThat(summary.getText())
                .contains("Routing accuracy")
                .contains("100 %")
                .contains("Misroute rate");
        assertThat(browser.findElement(By.id("eval-workers")).getText())
                .contains("cpu-inspector")
                .contains("ops-alerter");
        assertThat(browser.findElements(By.cssSelector("#eval-cases tbody tr"))).hasSize(3);
        shot("evaluation");
        go("#/evals");
        WebElement table = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("evals-table")));
        assertThat(table.getText()).contains("ops-team").contains("completed");
    }

    @Test
    @Order(8)
    void aReplayShowsItsCasesScoresAndItsRunCarriesTheReplayBadge() {
        ensureLoggedIn();
        var started = api.post(
                "/api/v1/replays",
                Api.ADMIN_KEY,
                "{\"name\":\"console\",\"suite\":[\"version: 1\\nname: echo-case\\ninput: {agent: echoer, input: console replay}\\n\"]}");
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String id = started.json().get("id").asString();
        String runId = started.json().get("cases").get(0).get("runId").asString();
        go("#/replays/" + id);
        WebElement summary = new WebDriverWait(browser, Duration.ofSeconds(60))
                .ignoring(StaleElementReferenceException.class)
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("replay-summary")));
        assertThat(summary.getText()).contains("Passed").contains("1 of 1");
        assertThat(browser.findElement(By.id("replay-cases-table")).getText()).contains("echo-case");
        go("#/replays");
        WebElement table = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("replays-table")));
        assertThat(table.getText()).contains("console").contains("completed");
        go("#/runs/" + runId);
        WebElement badge = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".badge.replay")));
        assertThat(badge.getText()).isEqualTo("replay");
    }

    // --- helpers

    /** A call-chain row's accessible label and its tokens text ("label|tokens"), or null while absent. */
    @Test
    @Order(8)
    void submitAWorkflow_fromTheSubmitPage_andSeeItsStepsUnderItInTheCallChain() {
        ensureLoggedIn();
        go("#/submit");
        WebElement input = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("submit-input")));
        Select agent = new Select(browser.findElement(By.id("submit-agent")));
        // Workflows are offered in their own group, internal ones not at all.
        assertThat(browser.findElements(By.cssSelector("#submit-workflows option")))
                .extracting(o -> o.getAttribute("value"))
                .contains("wf-incident", "wf-review")
                .doesNotContain("wf-internal");
        assertThat(browser.findElements(By.cssSelector("#submit-agent option")))
                .extracting(o -> o.getAttribute("value"))
                .doesNotContain("wf-hidden");
        agent.selectByValue("wf-incident");
        assertThat(browser.findElement(By.id("agent-desc")).getText()).contains("wf-triage, wf-fixer");
        input.sendKeys("api is slow");
        browser.findElement(By.id("submit-run")).click();

        wait.until(ExpectedConditions.urlContains("#/runs/"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run-status"), "completed"));
        // The workflow's span is the root of the chain; its two steps are agent rows one level below it.
        String rows = wait.until(d -> {
            Object r = js("return [...document.querySelectorAll('#call-tree .tree-row')]"
                    + ".filter((r) => ['workflow', 'agent'].includes(r.dataset.kind))"
                    + ".map((r) => r.dataset.kind + ':' + r.getAttribute('aria-level') + ':'"
                    + " + r.getAttribute('aria-label').split(',')[1].trim()).join(' ');");
            // The workflow's own span ends last and is stored last: until it is, the chain is drawn
            // from its steps' spans alone, so wait for the root row to be the workflow's.
            return r instanceof String t && t.contains("agent:2:wf-fixer") && t.startsWith("workflow:") ? t : null;
        });
        assertThat(rows).isEqualTo("workflow:1:wf-incident agent:2:wf-triage agent:2:wf-fixer");
        shot("workflow-run");
    }

    private String treeRow(String labelPrefix) {
        return (String) js(
                "const r = [...document.querySelectorAll('#call-tree .tree-row')]"
                        + ".find((r) => r.getAttribute('aria-label').startsWith(arguments[0]));"
                        + "const t = r && r.querySelector('[data-role=tokens]');"
                        + "return r && t ? r.getAttribute('aria-label') + '|' + t.textContent : null;",
                labelPrefix);
    }

    private String newKey(String name, String role) {
        var r = api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", name, "role", role)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("secret").asString();
    }

    private Object js(String script, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(script, args);
    }

    /**
     * Abort next to Approve and Reject on the run page: after a confirmation it ends the whole run
     * rejected; the ended run then offers Retry, which starts a new run linked to it and opens it.
     */
    @Test
    @Order(9)
    void abortAPendingApprovalFromTheRunPage_seeTheRunEndRejected_andRetryIt() {
        ensureLoggedIn();
        String runId = submit("fixer", "restart the api, then think better of it");
        String approval = awaitPendingApproval(runId).get("id").asString();

        go("#/runs/" + runId);
        WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#run-approvals article[data-approval='" + approval + "']")));
        // Waiting for a human in its first iteration: the run shows how far it is.
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run-progress"), "iteration 1 of 4"));
        assertThat(browser.findElement(By.cssSelector("#run-progress progress")).getAttribute("value"))
                .isEqualTo("0");
        WebElement abort = card.findElement(By.cssSelector("button.abort"));
        assertThat(abort.getText()).isEqualTo("Abort run");
        assertThat(card.findElement(By.cssSelector("button.approve")).isDisplayed())
                .isTrue();
        assertThat(card.findElement(By.cssSelector("button.reject")).isDisplayed())
                .isTrue();
        card.findElement(By.cssSelector("input.comment")).sendKeys("wrong service, stop everything");

        // Dismissed, nothing happens.
        abort.click();
        wait.until(ExpectedConditions.alertIsPresent()).dismiss();
        assertThat(api.get("/api/v1/approvals/" + approval, Api.ADMIN_KEY)
                        .json()
                        .get("status")
                        .asString())
                .isEqualTo("pending");

        abort.click();
        var confirm = wait.until(ExpectedConditions.alertIsPresent());
        assertThat(confirm.getText()).contains(runId).contains("rejected");
        confirm.accept();

        JsonNode end = awaitEnd(runId);
        assertThat(end.get("status").asString()).isEqualTo("rejected");
        assertThat(api.get("/api/v1/approvals/" + approval, Api.ADMIN_KEY)
                        .json()
                        .get("status")
                        .asString())
                .isEqualTo("aborted");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run-status"), "rejected"));
        wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("run-progress")));
        shot("aborted-run");

        // The ended run's page still re-renders for a few seconds; a button replaced between finding
        // and clicking it is found again (the wait ignores stale elements), so it is clicked once.
        wait.until(d -> {
            d.findElement(By.id("retry-run")).click();
            return true;
        });
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(d -> !d.getCurrentUrl().endsWith("#/runs/" + runId)
                && d.getCurrentUrl().contains("#/runs/run_"));
        String retried =
                browser.getCurrentUrl().substring(browser.getCurrentUrl().indexOf("#/runs/") + 7);
        JsonNode retriedRun = api.get("/api/v1/runs/" + retried, Api.ADMIN_KEY).json();
        assertThat(retriedRun.get("retryOf").asString()).isEqualTo(runId);
        assertThat(retriedRun.get("agent").asString()).isEqualTo("fixer");
        String next = awaitPendingApproval(retried).get("id").asString();
        api.post("/api/v1/approvals/" + next + "/reject", Api.ADMIN_KEY, "{\"comment\":\"test cleanup\"}");
        awaitEnd(retried);
    }

    @Test
    @Order(10)
    void aCappedToolResult_opensItsFullOutput_pageByPage_andFiltered() {
        // log-reader's big_output returns 50,000 lines; its model reads 4 KiB of them (tool output budgets).
        String id = submit("log-reader", "read the log");
        awaitEnd(id);
        ensureLoggedIn();
        go("#/runs/" + id);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run-status"), "completed"));
        // The tool's span (with the handle) is stored a moment after the run ends: click its row once there.
        wait.until(d -> (Boolean) js("const r = [...document.querySelectorAll('#call-tree [data-kind=tool]')]"
                + ".find((r) => r.getAttribute('aria-label').startsWith('tool, big_output,'));"
                + "if (!r) return false; r.click();"
                + "return !!document.querySelector('#node-detail details.full-output');"));
        String summary =
                (String) js("return document.querySelector('#node-detail details.full-output summary').innerText;");
        assertThat(summary).startsWith("Show full output (the tool returned ").contains("the model read");
        js("const d = document.querySelector('#node-detail details.full-output'); d.open = true;"
                + " d.dispatchEvent(new Event('toggle'));");
        String first = wait.until(d -> {
            Object t = js(
                    "const e = document.querySelector('#node-detail .full-output-lines'); return e && e.textContent;");
            return t instanceof String s && s.contains("499: ") ? s : null;
        });
        assertThat(first).startsWith("0: " + TestTools.bigOutputLine(0) + "\n").doesNotContain("\n500: ");
        js("document.querySelector('#node-detail .full-output-more').click()");
        wait.until(d -> ((String) js("return document.querySelector('#node-detail .full-output-lines').textContent;"))
                .contains("\n999: " + TestTools.bigOutputLine(999) + "\n"));
        js("const f = document.querySelector('#node-detail .full-output-grep'); f.value = 'ERROR';"
                + " f.dispatchEvent(new Event('change'));");
        String errors = wait.until(d -> {
            String t = (String) js("return document.querySelector('#node-detail .full-output-lines').textContent;");
            return t.startsWith("99: ") ? t : null;
        });
        assertThat(errors.lines().limit(3))
                .containsExactly(
                        "99: " + TestTools.bigOutputLine(99),
                        "199: " + TestTools.bigOutputLine(199),
                        "299: " + TestTools.bigOutputLine(299));
        shot("run-full-tool-output");
    }

    /**
     * Save as case on a finished run's page: the operator judges the run's findings and actions there,
     * a broken forbidden action is refused by its field (in the browser for bad JSON, by the server for
     * an unknown tool), and the saved case's YAML carries exactly the marked expectations.
     */
    @Test
    @Order(11)
    void anOperatorSavesAFinishedRunAsACase_withItsExpectationsMarkedOnTheRunPage() {
        String runId = submit("case-source", "web-1 is slow");
        assertThat(awaitEnd(runId).get("status").asString()).isEqualTo("completed");
        String operator = newKey("case-operator", "operator");
        ensureLoggedIn();
        browser.findElement(By.id("logout")).click();
        logIn(operator);

        go("#/runs/" + runId);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run-status"), "completed"));
        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#save-case > summary")))
                .click();
        wait.until(
                d -> d.findElements(By.cssSelector("#case-findings tbody tr")).size() == 2);
        WebElement name = browser.findElement(By.id("case-name"));
        assertThat(name.getAttribute("value")).isEqualTo("run-" + runId);
        name.clear();
        name.sendKeys("web1-cpu");
        browser.findElement(By.cssSelector("#case-findings tr[data-category=cpu] .root-cause"))
                .click();
        browser.findElement(By.cssSelector("#case-findings tr[data-category=cpu] .must-find"))
                .click();
        browser.findElement(By.cssSelector("#case-findings tr[data-category=disk] .must-not-find"))
                .click();
        browser.findElement(By.cssSelector("#case-actions tr[data-tool=notify] .action-expected"))
                .click();
        WebElement tool = browser.findElement(By.id("case-forbidden-tool-0"));
        WebElement args = browser.findElement(By.id("case-forbidden-args-0"));
        browser.findElement(By.cssSelector("input.ignore-args[data-tool=findings_aggregate]"))
                .sendKeys("reports, since");

        // Broken JSON: refused in the browser, beside the arguments it names; nothing is saved.
        tool.sendKeys("restart_service");
        args.sendKeys("{\"service\": \"db\",");
        browser.findElement(By.id("case-save")).click();
        WebElement argsError = wait.until(
                ExpectedConditions.visibilityOfElementLocated(
                        By.cssSelector(
                                "#case-forbidden-extra [data-extra='0'] .field-error[data-field='expect.forbiddenActions[0].arguments']")));
        assertThat(argsError.getText()).startsWith("Not valid JSON");
        assertThat(args.getAttribute("aria-invalid")).isEqualTo("true");
        assertThat(browser.findElements(By.id("case-yaml"))).isEmpty();

        // An unknown tool: the server's 400 names the field, shown beside that tool.
        args.clear();
        args.sendKeys("{\"service\": \"db\"}");
        tool.clear();
        tool.sendKeys("no_such_tool");
        browser.findElement(By.id("case-save")).click();
        WebElement toolError = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(
                "#case-forbidden-extra [data-extra='0'] .field-error[data-field='expect.forbiddenActions[0].tool']")));
        assertThat(toolError.getText()).isEqualTo("unknown tool 'no_such_tool'");
        assertThat(argsError.getText()).isEmpty();
        assertThat(browser.findElements(By.id("case-yaml"))).isEmpty();

        tool.clear();
        tool.sendKeys("restart_service");
        browser.findElement(By.id("case-save")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("case-yaml")));
        assertThat(toolError.getText()).isEmpty();
        String yaml = (String) js("return document.getElementById('case-yaml').textContent;");
        IncidentCase saved = new CaseFile(t -> true).read("web1-cpu.yaml", yaml);
        assertThat(saved.name()).isEqualTo("web1-cpu");
        assertThat(saved.recordedFrom()).isEqualTo(runId);
        IncidentCase.FindingRef cpu = new IncidentCase.FindingRef(null, "cpu", "web-1");
        assertThat(saved.expect().rootCause()).isEqualTo(cpu);
        assertThat(saved.expect().mustFind()).containsExactly(cpu);
        assertThat(saved.expect().mustNotFind()).containsExactly(new IncidentCase.FindingRef(null, "disk", "web-1"));
        assertThat(saved.expect().actions()).singleElement().satisfies(a -> {
            assertThat(a.tool()).isEqualTo("notify");
            assertThat(a.arguments().get("title").asString()).isEqualTo("web-1 CPU critical");
        });
        assertThat(saved.expect().forbiddenActions()).singleElement().satisfies(a -> {
            assertThat(a.tool()).isEqualTo("restart_service");
            assertThat(a.arguments().toString()).isEqualTo("{\"service\":\"db\"}");
        });
        assertThat(saved.expect().ignoreArguments())
                .isEqualTo(Map.of("findings_aggregate", List.of("reports", "since")));
        WebElement download = browser.findElement(By.id("case-download"));
        assertThat(download.getAttribute("download")).isEqualTo("web1-cpu.yaml");
        assertThat(download.getAttribute("href")).startsWith("blob:");
        shot("save-as-case");

        // Replayed at once against the running team: the replay's page lists the case.
        browser.findElement(By.id("case-replay")).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.id("case-replay-link")))
                .click();
        WebElement cases = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("replay-cases-table")));
        assertThat(cases.getText()).contains("web1-cpu");

        browser.findElement(By.id("logout")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
    }

    @Test
    @Order(12)
    void aViewerIsNotOfferedSaveAsCase() {
        String runId = submit("case-source", "web-1 is slow, viewer");
        awaitEnd(runId);
        String viewer = newKey("case-viewer", "viewer");
        ensureLoggedIn();
        browser.findElement(By.id("logout")).click();
        logIn(viewer);
        go("#/runs/" + runId);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run-status"), "completed"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#run-result")));
        // The panel is built with the outcome, so it would be there by now.
        assertThat(browser.findElements(By.id("save-case"))).isEmpty();
        assertThat(browser.findElement(By.id("run-case")).getText()).isEmpty();
        browser.findElement(By.id("logout")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
    }

    private void open(String path) {
        browser.get("http://127.0.0.1:" + port + path);
    }

    private void go(String hash) {
        ((JavascriptExecutor) browser).executeScript("location.hash = arguments[0]", hash);
    }

    private void logIn(String key) {
        WebElement input = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        input.sendKeys(key);
        browser.findElement(By.id("login")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-testid=whoami]")));
    }

    private void ensureLoggedIn() {
        if (browser.getCurrentUrl().startsWith("http://127.0.0.1:" + port)
                && !browser.findElements(By.cssSelector("[data-testid=whoami]")).isEmpty()
                && browser.findElement(By.cssSelector("[data-testid=whoami]")).isDisplayed()) {
            return;
        }
        open("/");
        wait.until(d -> !d.findElements(By.id("api-key")).isEmpty()
                || !d.findElements(By.cssSelector("[data-testid=whoami]")).isEmpty());
        if (!browser.findElements(By.id("api-key")).isEmpty()) {
            logIn(Api.ADMIN_KEY);
        }
    }

    private String submit(String agent, String input) {
        return api.submitRun(agent, input).get("id").asString();
    }

    private JsonNode awaitEnd(String runId) {
        return api.awaitRunEnd(runId);
    }

    private JsonNode awaitPendingApproval(String runId) {
        return Await.until(
                        "a pending approval of run " + runId,
                        () -> api.get("/api/v1/approvals?status=pending&runId=" + runId, Api.ADMIN_KEY)
                                .json()
                                .get("items"),
                        items -> !items.isEmpty())
                .get(0);
    }

    private void shot(String name) {
        try {
            File f = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
            Files.copy(f.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new IllegalStateException("could not save screenshot " + name, e);
        }
    }
}
