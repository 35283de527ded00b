package dev.cadre.platform.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.incidents.IncidentTarget;
import dev.cadre.platform.incidents.TimelineEntry;
import dev.cadre.platform.incidents.TimelineKind;
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
import tools.jackson.databind.JsonNode;

/**
 * The on-call path on a phone, in a real headless Chromium 390 px wide: the incidents list, the menu,
 * one incident with its timeline and evidence, approving its run's pending action inline, acknowledging
 * and resolving it — and nothing wider than the screen. Screenshots land in target/screenshots.
 */
@PlatformTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IncidentConsoleTest {

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
    }

    @AfterAll
    void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void onCallAtThreeInTheMorning_onAPhone() {
        Api api = new Api(port);
        String runId = api.submitRun("fixer", "restart api on web-7").get("id").asString();
        JsonNode approval = Await.until(
                        "a pending approval of run " + runId,
                        () -> api.get("/api/v1/approvals?status=pending&runId=" + runId, Api.ADMIN_KEY)
                                .json()
                                .get("items"),
                        items -> !items.isEmpty())
                .get(0);
        String tag = UUID.randomUUID().toString().substring(0, 6);
        String id = incidents
                .open(
                        new IncidentService.OpenRequest(
                                "console-" + tag,
                                "ApiDown on web-7 " + tag,
                                "critical",
                                "alertmanager",
                                Map.of("instance", "web-7:9100", "job", "api"),
                                "The api service on web-7 stopped answering its health check.",
                                null,
                                new IncidentTarget(IncidentTarget.Kind.HOST, "web-7", null, "web-7:9100")),
                        Writer.apiClient("alertmanager"),
                        runId)
                .incident()
                .id();
        incidents.appendTimeline(
                id,
                new TimelineEntry(
                        TimelineKind.FINDINGS,
                        "ops-triage",
                        "api.service is inactive (dead) since 03:02; the last log line is an out-of-memory kill",
                        null,
                        runId,
                        null));

        browser.get("http://127.0.0.1:" + port + "/");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")))
                .sendKeys(Api.ADMIN_KEY);
        browser.findElement(By.id("login")).click();
        // Incidents is the home page.
        WebElement item = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#active-incidents a[data-incident='" + id + "']")));
        assertThat(item.getText())
                .contains("ApiDown on web-7 " + tag)
                .contains("critical")
                .contains("web-7")
                .contains("nobody yet")
                .contains("api.service is inactive");
        assertFitsTheScreen();
        shot("incidents-390");

        // The menu: closed, a button opens it as full-width links.
        WebElement toggle = browser.findElement(By.id("nav-toggle"));
        assertThat(toggle.isDisplayed()).isTrue();
        assertThat(browser.findElement(By.cssSelector("#nav a[data-page=approvals]"))
                        .isDisplayed())
                .isFalse();
        toggle.click();
        WebElement approvalsLink = wait.until(
                ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#nav a[data-page=approvals]")));
        assertThat(approvalsLink.getSize().getWidth()).isGreaterThan(300);
        assertThat(approvalsLink.getSize().getHeight()).isGreaterThanOrEqualTo(36);
        shot("nav-390-open");
        approvalsLink.click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("article[data-approval='" + approval.get("id").asString() + "']")));
        assertThat(browser.findElement(By.cssSelector("#nav a[data-page=approvals]"))
                        .isDisplayed())
                .as("the menu closes after choosing a page")
                .isFalse();
        assertFitsTheScreen();
        shot("approvals-390");

        // The incident page.
        ((JavascriptExecutor) browser).executeScript("location.hash = arguments[0]", "#/incidents/" + id);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("incident-title"), "ApiDown on web-7"));
        assertThat(browser.findElement(By.id("incident-target")).getText()).isEqualTo("web-7");
        assertThat(browser.findElement(By.id("incident-evidence")).getText())
                .contains("stopped answering its health check")
                .contains("out-of-memory kill");
        assertThat(kinds()).contains("findings", "run_started", "opened");
        WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#incident-approvals article[data-approval='"
                        + approval.get("id").asString() + "']")));
        assertThat(card.getText()).contains("restart_service");
        assertFitsTheScreen();
        shot("incident-390");

        // Acknowledge: it becomes mine, on the timeline, live.
        tap(browser.findElement(By.id("acknowledge")));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("incident-owner"), "bootstrap"));
        wait.until(d -> kinds().contains("acknowledged"));

        // Approve its pending action inline.
        tap(card.findElement(By.cssSelector("button.approve")));
        Await.until(
                "approval to be decided",
                () -> api.get("/api/v1/approvals/" + approval.get("id").asString(), Api.ADMIN_KEY)
                        .json(),
                a -> a.get("status").asString().equals("approved"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("no-approvals")));

        // Someone else comments (another console, the API): it shows here without a reload.
        api.post("/api/v1/incidents/" + id + "/comments", Api.ADMIN_KEY, "{\"text\":\"restart done, watching it\"}");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.id("incident-timeline"), "restart done, watching it"));

        // Resolve with root cause and fix.
        tap(browser.findElement(By.xpath("//details[summary='Resolve']/summary")));
        browser.findElement(By.id("resolve-form-rootCause")).sendKeys("the api leaked memory until the OOM killer");
        browser.findElement(By.id("resolve-form-fix")).sendKeys("restarted api.service");
        tap(browser.findElement(By.id("resolve-form-submit")));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("incident-status"), "resolved"));
        assertThat(browser.findElement(By.id("incident-resolution")).getText())
                .contains("the api leaked memory")
                .contains("restarted api.service");
        assertFitsTheScreen();
        shot("incident-390-resolved");

        JsonNode stored = api.get("/api/v1/incidents/" + id, Api.ADMIN_KEY).json();
        assertThat(stored.path("summary").path("status").asString()).isEqualTo("resolved");
        assertThat(stored.path("incident").path("resolution").path("fix").asString())
                .isEqualTo("restarted api.service");
    }

    /** Scrolls the element to the middle of the small screen, as a thumb would, and taps it. */
    private void tap(WebElement element) {
        ((JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView({block: 'center'})", element);
        element.click();
    }

    /** Nothing is wider than the 390 px screen: no sideways scrolling of the page. */
    private void assertFitsTheScreen() {
        Object[] widths = ((List<?>) ((JavascriptExecutor) browser)
                        .executeScript("return [document.documentElement.scrollWidth, window.innerWidth]"))
                .toArray();
        assertThat(((Number) widths[0]).longValue())
                .as("page width at a %s px window", widths[1])
                .isLessThanOrEqualTo(((Number) widths[1]).longValue());
    }

    @SuppressWarnings("unchecked")
    private List<String> kinds() {
        return (List<String>) ((JavascriptExecutor) browser)
                .executeScript(
                        "return [...document.querySelectorAll('#incident-timeline li')].map(li => li.dataset.kind)");
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
