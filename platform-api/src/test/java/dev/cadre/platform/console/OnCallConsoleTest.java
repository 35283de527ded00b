package dev.cadre.platform.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.incidents.IncidentTarget;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.HeadlessChromium;
import dev.cadre.platform.support.PlatformTest;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * What on-call reads and decides on a phone, in a real headless Chromium 390 px wide: an approval
 * opened from a notification's link, in words (headline, details, plan, bound arguments — no JSON
 * braces), the call chain's tool input and output in words, similar past incidents with their root
 * cause and fix on the incident page, and an approval whose proposal another operator changed while
 * it was on screen: the approve answers 409 and the card is drawn again with the new arguments.
 * The browser is an on-call operator's; runs are submitted by others, as separation of duties (on,
 * the production default) wants. Screenshots land in target/screenshots.
 */
@PlatformTest
// The production default: an operator's edits are a proposal another person approves.
@TestPropertySource(properties = "cadre.approvals.separation-of-duties=true")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OnCallConsoleTest {

    private static final Path SHOTS = Path.of("target", "screenshots");

    @LocalServerPort
    int port;

    @Autowired
    IncidentService incidents;

    @RegisterExtension
    final TestWatcher screenshotOnFailure = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            if (browser != null) {
                shot("FAILED-" + context.getRequiredTestMethod().getName());
            }
        }
    };

    WebDriver browser;
    WebDriverWait wait;
    Api api;

    @BeforeAll
    void startBrowser() throws IOException {
        if (!Files.isExecutable(HeadlessChromium.CHROMIUM) || !Files.isExecutable(HeadlessChromium.CHROMEDRIVER)) {
            fail("Chromium is missing: apt-get install -y chromium chromium-driver");
        }
        browser = new ChromeDriver(
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(new File(HeadlessChromium.CHROMEDRIVER.toString()))
                        .build(),
                HeadlessChromium.options(Files.createTempDirectory("cadre-chromium-")));
        browser.manage().window().setSize(new Dimension(390, 844));
        wait = new WebDriverWait(browser, Duration.ofSeconds(60));
        wait.ignoring(StaleElementReferenceException.class);
        Files.createDirectories(SHOTS);
        api = new Api(port);
        browser.get(base() + "/");
        // On call is an operator, not whoever set the platform up (who submits the runs here).
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")))
                .sendKeys(newKey("on-call-" + UUID.randomUUID(), "operator"));
        browser.findElement(By.id("login")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-testid=whoami]")));
    }

    @AfterAll
    void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    /**
     * The link a notification carries ({@code cadre.public-url}/#/approvals/{id}) opens that approval;
     * everything a person reads on it is words, secrets masked; approving it works from the phone; the
     * run's call chain then shows the tool's input and output in words too.
     */
    @Test
    void theNotificationsLinkOpensTheApproval_inWords_andTheCallChainReadsAsWords() {
        String runId =
                api.submitRun("leaky-approver", "the api is stuck").get("id").asString();
        JsonNode approval = api.pendingApprovalOf(runId);
        String id = approval.get("id").asString();
        // The API keeps the structured form beside the words.
        assertThat(approval.get("arguments").get("service").asString()).isEqualTo("api");
        assertThat(approval.get("plan").size()).isEqualTo(2);
        assertThat(approval.get("planText").size()).isEqualTo(2);

        browser.get(base() + "/#/approvals/" + id);
        WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#approval-one article[data-approval='" + id + "']")));
        String headline = card.findElement(By.cssSelector(".headline")).getText();
        assertThat(headline).startsWith("Restart service with service api and host ");
        List<String> plan = texts(card, "ol.plan li");
        assertThat(plan).hasSize(2);
        assertThat(plan.get(0)).startsWith("Echo with ");
        assertThat(plan.get(1)).startsWith("Restart service with service api");
        List<String> bound = texts(card, "ul.proposed-lines li");
        assertThat(bound).hasSize(2);
        assertThat(bound.get(0)).isEqualTo("service: api");
        assertThat(bound.get(1)).startsWith("host: ");
        for (String read : concat(List.of(headline), plan, bound, texts(card, ".approval-details li"))) {
            assertThat(read).as("what a person reads").doesNotContain("{", "}", "\"");
        }
        assertThat(card.getText())
                .as("secrets stay masked in the words")
                .doesNotContain("PlanS3cretPw", "PlanPass-echo-9");
        assertThat(browser.findElement(By.cssSelector("#nav a[data-page=approvals]"))
                        .getAttribute("aria-current"))
                .isEqualTo("page");
        assertFitsTheScreen();
        shot("approval-link-390");

        tap(card.findElement(By.cssSelector("button.approve")));
        wait.until(d -> !String.valueOf(js("return document.getElementById('toasts').innerText"))
                .isBlank());
        assertThat(String.valueOf(js("return document.getElementById('toasts').innerText")))
                .contains("approved");
        Await.until(
                "approval " + id + " to be decided",
                () -> api.get("/api/v1/approvals/" + id, Api.ADMIN_KEY).json(),
                a -> a.get("status").asString().equals("approved"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("approval-one"), "Decided by"));
        assertThat(api.awaitRunEnd(runId).get("status").asString()).isEqualTo("completed");
        api.awaitTrace(runId);

        // The call chain: the tool's input and output, in words.
        tap(browser.findElement(By.id("approval-run")));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run-status"), "completed"));
        wait.until(d -> Boolean.TRUE.equals(
                js("return !!document.querySelector('#call-tree [data-kind=tool][aria-label*=echo]')")));
        js("document.querySelector('#call-tree [data-kind=tool][aria-label*=echo]').click()");
        String input = wait.until(d -> (String)
                js("const e = document.querySelector('#node-detail .node-input'); return e ? e.innerText : null;"));
        String output = (String)
                js("const e = document.querySelector('#node-detail .node-output'); return e ? e.innerText : '';");
        assertThat(input).contains("password").contains("text").doesNotContain("{", "}");
        assertThat(output).isNotBlank().doesNotContain("{", "}");
        assertThat(input + output).doesNotContain("PlanPass-echo-9");
        js("document.getElementById('node-detail').scrollIntoView()");
        assertFitsTheScreen();
        shot("call-chain-tool-390");
    }

    /** The incident page lists past incidents like it, each with its root cause, its fix and a link. */
    @Test
    void theIncidentPageShowsSimilarPastIncidents_withTheirRootCauseAndFix() {
        String tag = UUID.randomUUID().toString().substring(0, 6);
        String past = open(
                "disk-" + tag + "-old",
                "HostOutOfDiskSpace on db-3",
                "Disk /var on db-3 is 97% full; postgres WAL archive piling up after the archive command failed.",
                "db-3");
        var resolved = api.post(
                "/api/v1/incidents/" + past + "/resolve",
                Api.ADMIN_KEY,
                Api.json(Map.of(
                        "rootCause", "the WAL archive command failed " + tag + " so segments piled up on /var",
                        "fix", "fixed archive_command credentials and pruned archived WAL " + tag)));
        assertThat(resolved.status()).as(resolved.body()).isEqualTo(200);
        String now = open(
                "disk-" + tag + "-new",
                "HostOutOfDiskSpace on db-5",
                "Filesystem /var on db-5 at 96%: postgres WAL files are accumulating, archiving is failing.",
                "db-5");
        Await.until(
                "the resolved incident to be remembered as like the new one",
                () -> api.get("/api/v1/incidents/" + now + "/similar", Api.ADMIN_KEY)
                        .json(),
                r -> java.util.stream.StreamSupport.stream(r.path("items").spliterator(), false)
                        .anyMatch(i -> i.path("incident").asString().equals(past)));

        browser.get(base() + "/#/incidents/" + now);
        WebElement item = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#similar-incidents .similar-item[data-incident='" + past + "']")));
        assertThat(item.getText())
                .contains("HostOutOfDiskSpace on db-3")
                .contains("Root cause")
                .contains("the WAL archive command failed " + tag)
                .contains("Fix")
                .contains("fixed archive_command credentials and pruned archived WAL " + tag);
        ((JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView({block: 'center'})", item);
        assertFitsTheScreen();
        shot("incident-similar-390");

        tap(item.findElement(By.cssSelector("a[href='#/incidents/" + past + "']")));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.id("incident-title"), "HostOutOfDiskSpace on db-3"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("incident-status"), "resolved"));
    }

    /**
     * Two people on one approval: this console shows it; another operator proposes other arguments
     * meanwhile. Approving what this console shows is refused (409 approval-changed), nothing runs,
     * and the card is drawn again with the new arguments and why; approving that runs them.
     */
    @Test
    void approvingACardSomeoneElseChanged_redrawsItWithTheNewArguments() {
        String runId = runOverA2a("runbook-asker", "how full is /tmp?");
        String id = api.pendingApprovalOf(runId).get("id").asString();

        browser.get(base() + "/#/approvals/" + id);
        WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#approval-one article[data-approval='" + id + "']")));
        assertThat(texts(card, "ul.proposed-lines li")).contains("arguments top: 5");
        // This page stops looking for changes (as a phone's tab in the background would), so the
        // change reaches it through the 409 and nothing else.
        js("Object.defineProperty(document, 'hidden', { value: true, configurable: true })");

        // The other session: an operator proposes top 1 instead.
        String other = newKey("other-" + UUID.randomUUID(), "operator");
        var proposed = api.approve(
                id,
                other,
                "{\"editedArguments\":{\"runbook\":\"disk-usage-report\",\"arguments\":{\"path\":\"/tmp\",\"top\":1},"
                        + "\"reason\":\"only the biggest\"}}");
        assertThat(proposed.status()).as(proposed.body()).isEqualTo(200);
        assertThat(proposed.json().get("status").asString()).isEqualTo("pending");
        assertThat(card.findElements(By.cssSelector("ul.edited-lines")))
                .as("not seen here yet")
                .isEmpty();

        tap(card.findElement(By.cssSelector("button.approve")));
        WebElement redrawn = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#approval-one article[data-approval='" + id + "'] .approval-changed")));
        assertThat(redrawn.getText())
                .contains("This approval changed since you read it")
                .contains("Nothing was decided");
        WebElement fresh = browser.findElement(By.cssSelector("#approval-one article[data-approval='" + id + "']"));
        assertThat(texts(fresh, "ul.edited-lines li")).contains("arguments top: 1", "reason: only the biggest");
        assertThat(fresh.findElement(By.cssSelector(".headline")).getText())
                .contains("arguments top 1")
                .doesNotContain("{");
        assertThat(api.get("/api/v1/approvals/" + id, Api.ADMIN_KEY)
                        .json()
                        .get("status")
                        .asString())
                .as("nothing was decided")
                .isEqualTo("pending");
        assertFitsTheScreen();
        shot("approval-changed-390");

        tap(fresh.findElement(By.cssSelector("button.approve")));
        JsonNode decided = Await.until(
                "approval " + id + " to be decided",
                () -> api.get("/api/v1/approvals/" + id, Api.ADMIN_KEY).json(),
                a -> a.get("status").asString().equals("approved"));
        assertThat(decided.at("/editedArguments/arguments/top").asInt()).isEqualTo(1);
        assertThat(api.awaitRunEnd(runId).get("status").asString()).isEqualTo("completed");
    }

    private String base() {
        return "http://127.0.0.1:" + port;
    }

    private String open(String fingerprint, String title, String summary, String host) {
        return incidents
                .open(
                        new IncidentService.OpenRequest(
                                fingerprint,
                                title,
                                "warning",
                                "alertmanager",
                                Map.of(
                                        "alertname",
                                        "HostOutOfDiskSpace",
                                        "instance",
                                        host + ":9100",
                                        "mountpoint",
                                        "/var"),
                                summary,
                                null,
                                new IncidentTarget(IncidentTarget.Kind.HOST, host, null, host + ":9100")),
                        Writer.apiClient("alertmanager"),
                        null)
                .incident()
                .id();
    }

    /** A run of {@code agent} over A2A: no person submitted it. */
    private String runOverA2a(String agent, String text) {
        String peer = newKey("peer-" + UUID.randomUUID(), "agent");
        var sent = api.post(
                "/a2a",
                peer,
                "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"SendMessage\",\"params\":{\"message\":{"
                        + "\"messageId\":\"" + UUID.randomUUID() + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":"
                        + Api.json(text) + "}],\"metadata\":{\"agent\":\"" + agent + "\"}}}}");
        assertThat(sent.status()).as(sent.body()).isEqualTo(200);
        return sent.json().at("/result/task/id").asString();
    }

    private String newKey(String name, String role) {
        var r = api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", name, "role", role)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("secret").asString();
    }

    private static List<String> texts(WebElement root, String css) {
        return root.findElements(By.cssSelector(css)).stream()
                .map(WebElement::getText)
                .toList();
    }

    @SafeVarargs
    private static List<String> concat(List<String>... lists) {
        return java.util.Arrays.stream(lists).flatMap(List::stream).toList();
    }

    private Object js(String script, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(script, args);
    }

    /** Scrolls the element to the middle of the small screen, as a thumb would, and taps it. */
    private void tap(WebElement element) {
        ((JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView({block: 'center'})", element);
        element.click();
    }

    /** Nothing is wider than the 390 px screen: no sideways scrolling of the page. */
    private void assertFitsTheScreen() {
        Object[] widths = ((List<?>) js("return [document.documentElement.scrollWidth, window.innerWidth]")).toArray();
        assertThat(((Number) widths[0]).longValue())
                .as("page width at a %s px window", widths[1])
                .isLessThanOrEqualTo(((Number) widths[1]).longValue());
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
