package dev.cadre.platform.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.HeadlessChromium;
import dev.cadre.platform.support.PlatformTest;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The overview's charts as a person sees them, at the common window widths: every text a chart
 * draws (axis labels, legend, value labels) lies inside the chart's box — a clipped
 * "emory-inspector" is outside it — and no two overlap ("0 1000200030004000" is four ticks drawn
 * over each other). The boxes come from the chart's own scene graph (ECharts' zrender: each text
 * element's bounding rectangle under its transform), so the check does not depend on the renderer.
 * Also: the console has a favicon. Screenshots land in target/screenshots.
 */
@PlatformTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleChartsTest {

    private static final Path SHOTS = Path.of("target", "screenshots");
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<Integer> WIDTHS = List.of(1280, 1440, 1920);
    private static final List<String> CHARTS =
            List.of("chart-per-hour", "chart-failures", "chart-tokens-agent", "chart-tokens-model");

    /** Every visible text of every chart on the page, with its box in the chart's pixels. */
    private static final String TEXT_BOXES = """
            const out = [];
            for (const el of document.querySelectorAll('.chart')) {
              const chart = window.echarts && echarts.getInstanceByDom(el);
              if (!chart) { out.push({ chart: el.id, missing: true }); continue; }
              const texts = [];
              for (const d of chart.getZr().storage.getDisplayList(true)) {
                if (d.invisible || d.ignore || !d.style || typeof d.style.text !== 'string' || !d.style.text.trim()) continue;
                let hidden = false;
                for (let p = d.parent; p; p = p.parent) if (p.ignore || p.invisible) hidden = true;
                if (hidden) continue;
                const r = d.getBoundingRect().clone();
                const m = d.getComputedTransform();
                if (m) r.applyTransform(m);
                texts.push({ text: d.style.text, x: r.x, y: r.y, w: r.width, h: r.height });
              }
              out.push({ chart: el.id, width: chart.getWidth(), height: chart.getHeight(), texts });
            }
            return JSON.stringify(out);
            """;

    @LocalServerPort
    int port;

    WebDriver browser;
    Path profile;

    @BeforeAll
    void startBrowser() throws IOException {
        if (!Files.isExecutable(HeadlessChromium.CHROMIUM) || !Files.isExecutable(HeadlessChromium.CHROMEDRIVER)) {
            fail("Chromium is missing: the console browser tests need Debian's chromium and chromium-driver"
                    + " (" + HeadlessChromium.CHROMIUM + ", " + HeadlessChromium.CHROMEDRIVER + "). Install them with:"
                    + " apt-get install -y chromium chromium-driver");
        }
        profile = Files.createTempDirectory("cadre-chromium-");
        browser = new ChromeDriver(
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(new File(HeadlessChromium.CHROMEDRIVER.toString()))
                        .build(),
                HeadlessChromium.options(profile));
        Files.createDirectories(SHOTS);
    }

    @AfterAll
    void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void everyChartText_liesInsideItsChart_andOverlapsNoOther_at1280_1440_and1920Wide() {
        seed(new Api(port));
        logIn();
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(60));
        List<String> violations = new ArrayList<>();
        int checked = 0;
        for (int width : WIDTHS) {
            browser.manage().window().setSize(new Dimension(width, 1200));
            browser.get("http://127.0.0.1:" + port + "/#/overview");
            // Drawn and settled: every chart has its instance and texts, the same in two polls in a row.
            String[] last = {""};
            JsonNode charts = wait.until(d -> {
                String now = (String) js(TEXT_BOXES);
                JsonNode c = JSON.readTree(now);
                boolean drawn = c.size() == CHARTS.size();
                for (JsonNode chart : c) {
                    drawn &= !chart.has("missing") && chart.path("texts").size() > 0;
                }
                boolean settled = now.equals(last[0]);
                last[0] = now;
                return drawn && settled ? c : null;
            });
            shot("overview-" + width);
            for (JsonNode chart : charts) {
                String where = width + " px wide, " + chart.get("chart").asString();
                double w = chart.get("width").asDouble();
                double h = chart.get("height").asDouble();
                List<JsonNode> texts = new ArrayList<>();
                chart.get("texts").forEach(texts::add);
                for (JsonNode t : texts) {
                    checked++;
                    double x = t.get("x").asDouble();
                    double y = t.get("y").asDouble();
                    if (x < -0.5
                            || y < -0.5
                            || x + t.get("w").asDouble() > w + 0.5
                            || y + t.get("h").asDouble() > h + 0.5) {
                        violations.add(where + ": '" + t.get("text").asString() + "' at " + box(t)
                                + " is cut by the chart's edge (" + Math.round(w) + "×" + Math.round(h) + ")");
                    }
                }
                for (int i = 0; i < texts.size(); i++) {
                    for (int j = i + 1; j < texts.size(); j++) {
                        if (overlap(texts.get(i), texts.get(j))) {
                            violations.add(where + ": '"
                                    + texts.get(i).get("text").asString() + "' " + box(texts.get(i)) + " overlaps '"
                                    + texts.get(j).get("text").asString() + "' " + box(texts.get(j)));
                        }
                    }
                }
            }
        }
        assertThat(checked).as("chart texts checked").isGreaterThan(3 * 20);
        assertThat(violations).as("clipped or colliding chart texts").isEmpty();
    }

    @Test
    void theConsoleLinksAFavicon_andItAndFaviconIcoAreServed() {
        browser.get("http://127.0.0.1:" + port + "/");
        String href = new WebDriverWait(browser, Duration.ofSeconds(60))
                .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("link[rel~=icon]")))
                .getAttribute("href");
        Api anonymous = new Api(port);
        var linked = anonymous.get(href.replace("http://127.0.0.1:" + port, ""), null);
        assertThat(linked.status()).as(href).isEqualTo(200);
        assertThat(linked.header("Content-Type")).startsWith("image/svg+xml");
        assertThat(linked.body()).contains("<svg");
        var ico = anonymous.get("/favicon.ico", null);
        assertThat(ico.status()).isEqualTo(200);
        assertThat(ico.header("Content-Type")).startsWith("image/");
    }

    /**
     * Runs whose figures fill every chart: several agents with a few hundred to thousand tokens each
     * (ticks like 1000, 2000, … are where they collided), one with a name and model as long as real
     * ones (test-agents/console-charts.yaml), and a failure.
     */
    private static void seed(Api api) {
        List<String> ids = new ArrayList<>();
        for (String agent :
                // The inspectors are internal (workers only): the orchestrator's run brings them in.
                List.of("ops-orchestrator", "ops-analyst", "capacity-planning-inspector")) {
            ids.add(api.submitRun(agent, "check host web-1").get("id").asString());
        }
        ids.add(api.submitRun("doomed", "fail, please").get("id").asString());
        ids.forEach(api::awaitRunEnd);
    }

    private void logIn() {
        browser.get("http://127.0.0.1:" + port + "/");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(60));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")))
                .sendKeys(Api.ADMIN_KEY);
        browser.findElement(By.id("login")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-testid=whoami]")));
    }

    private static boolean overlap(JsonNode a, JsonNode b) {
        // Half a pixel of slack: neighbours that merely touch are fine.
        double dx = Math.min(
                        a.get("x").asDouble() + a.get("w").asDouble(),
                        b.get("x").asDouble() + b.get("w").asDouble())
                - Math.max(a.get("x").asDouble(), b.get("x").asDouble());
        double dy = Math.min(
                        a.get("y").asDouble() + a.get("h").asDouble(),
                        b.get("y").asDouble() + b.get("h").asDouble())
                - Math.max(a.get("y").asDouble(), b.get("y").asDouble());
        return dx > 0.5 && dy > 0.5;
    }

    private static String box(JsonNode t) {
        return "[" + Math.round(t.get("x").asDouble()) + ","
                + Math.round(t.get("y").asDouble()) + " "
                + Math.round(t.get("w").asDouble()) + "×"
                + Math.round(t.get("h").asDouble()) + "]";
    }

    private Object js(String script) {
        return ((JavascriptExecutor) browser).executeScript(script);
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
