package dev.cadre.platform.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.HeadlessChromium;
import dev.cadre.platform.support.PlatformTest;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A run's answer reads as text in the console: its Markdown (lists, bold, code) is rendered, and
 * markup in it stays text — an answer carrying {@code <img onerror>} or {@code <script>} creates no
 * element and runs nothing. In Chromium; the page is kept as {@code target/screenshots/answer-markdown.png}.
 */
@PlatformTest
class AnswerMarkdownBrowserTest {

    @LocalServerPort
    int port;

    @Test
    @SuppressWarnings("unchecked")
    void anAnswersMarkdownIsRendered_andItsHtmlStaysText() throws Exception {
        if (!Files.isExecutable(HeadlessChromium.CHROMIUM) || !Files.isExecutable(HeadlessChromium.CHROMEDRIVER)) {
            fail("Chromium is missing: apt-get install -y chromium chromium-driver");
        }
        Api api = new Api(port);
        String input = "**Rolled back** <img src=x onerror=\"window.__xss=1\"> <script>window.__xss=2</script>\n"
                + "- shop/checkout to revision `1`\n"
                + "  - evidence: 7 restarts\n"
                + "- incident left open";
        String run = api.submitRun("echoer", input).get("id").asString();
        api.awaitRunEnd(run);

        Path profile = Files.createTempDirectory("cadre-chromium-");
        WebDriver browser = new ChromeDriver(
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(new File(HeadlessChromium.CHROMEDRIVER.toString()))
                        .build(),
                HeadlessChromium.options(profile));
        try {
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(60));
            browser.get("http://127.0.0.1:" + port + "/");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")))
                    .sendKeys(Api.ADMIN_KEY);
            browser.findElement(By.id("login")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-testid=whoami]")));
            ((JavascriptExecutor) browser).executeScript("location.hash = arguments[0]", "#/runs/" + run);
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#run-result li")));
            Files.createDirectories(Path.of("target", "screenshots"));
            Files.copy(
                    ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath(),
                    Path.of("target", "screenshots", "answer-markdown.png"),
                    StandardCopyOption.REPLACE_EXISTING);

            Object seen = ((JavascriptExecutor) browser).executeScript("""
                            const r = document.getElementById('run-result');
                            return [String(window.__xss), r.querySelectorAll('img, script').length,
                              [...r.querySelectorAll('strong')].map((e) => e.textContent).join('|'),
                              [...r.querySelectorAll(':scope > ul > li')].length,
                              r.querySelectorAll('ul ul > li').length,
                              [...r.querySelectorAll('code')].map((e) => e.textContent).join('|'),
                              r.querySelector('p').textContent];
                            """);
            assertThat((List<Object>) seen)
                    .containsExactly(
                            "undefined",
                            0L,
                            "Rolled back",
                            2L,
                            1L,
                            "1",
                            "remote says: Rolled back <img src=x onerror=\"window.__xss=1\"> <script>window.__xss=2</script>");
        } finally {
            browser.quit();
        }
    }
}
