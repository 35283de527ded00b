package dev.cadre.platform.security.oidc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.HeadlessChromium;
import dev.cadre.platform.support.KeycloakPeer;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A person signs in to the console in a real headless Chromium through Keycloak's own login page:
 * lands in their first team, switches team, approves a run a colleague of the team submitted (the
 * colleague may not), and signs out. The console is opened at {@code localhost} and Keycloak
 * answers at {@code 127.0.0.1}: two sites, so the provider's redirect back is cross-site, as in
 * production, where the console's {@code SameSite=Strict} session cookie is not sent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SingleSignOnBrowserTest extends SsoPlatformTest {

    private static final Path SHOTS = Path.of("target", "screenshots");

    @LocalServerPort
    int port;

    final KeycloakPeer keycloak = KeycloakPeer.shared();
    Api api;
    WebDriver browser;
    WebDriverWait wait;

    @RegisterExtension
    final TestWatcher screenshotOnFailure = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            if (browser != null) {
                shot("FAILED-sso-" + context.getRequiredTestMethod().getName());
            }
        }
    };

    @BeforeAll
    void startBrowser() throws IOException {
        if (!Files.isExecutable(HeadlessChromium.CHROMIUM) || !Files.isExecutable(HeadlessChromium.CHROMEDRIVER)) {
            fail("Chromium is missing: the console browser tests need Debian's chromium and chromium-driver."
                    + " Install them with: apt-get install -y chromium chromium-driver");
        }
        api = new Api(port);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(HeadlessChromium.CHROMEDRIVER.toString()))
                .build();
        browser = new ChromeDriver(service, HeadlessChromium.options(Files.createTempDirectory("cadre-chromium-sso-")));
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
    @Order(1)
    void signIn_throughKeycloaksLoginPage_landsInTheConsole_inTheFirstTeam() {
        browser.get(console("/"));
        WebElement sso = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("sso-login")));
        assertThat(sso.getText()).isEqualTo("Sign in with Keycloak");
        shot("sso-login");
        sso.click();

        signInAtKeycloak("alice");

        WebElement who =
                wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-testid=whoami]")));
        assertThat(who.getText()).contains("Alice Adams").contains("operator");
        Select team = new Select(wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("team-switch"))));
        assertThat(team.getFirstSelectedOption().getAttribute("value")).isEqualTo("payments");
        assertThat(team.getOptions())
                .extracting(WebElement::getText)
                .containsExactly("payments (operator)", "storage (operator)");
        assertThat(browser.getCurrentUrl()).startsWith(console("/#/incidents"));
        shot("sso-signed-in");
    }

    @Test
    @Order(2)
    void aPersonInTwoTeams_switchesTeam() {
        switchTo("storage");
        assertThat(sessionTeam()).isEqualTo("storage");
        assertThat(browser.findElement(By.cssSelector("[data-testid=whoami]")).getText())
                .contains("Alice Adams");
        switchTo("payments");
        assertThat(sessionTeam()).isEqualTo("payments");
    }

    /** Picks {@code team} in the header; the console reloads in it. */
    private void switchTo(String team) {
        WebElement before = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("team-switch")));
        new Select(before).selectByValue(team);
        wait.until(ExpectedConditions.stalenessOf(before));
        wait.until(d -> {
            var now = d.findElements(By.id("team-switch"));
            return !now.isEmpty()
                    && team.equals(
                            new Select(now.get(0)).getFirstSelectedOption().getAttribute("value"));
        });
    }

    @Test
    @Order(3)
    void aSecondPersonOfTheTeam_approvesTheRun_theSubmitterMayNot() {
        String bob = keycloak.accessToken("bob");
        Api.Response submitted =
                api.post("/api/v1/runs", bob, Api.json(Map.of("agent", "fixer", "input", "restart the api")));
        assertThat(submitted.status()).as(submitted.body()).isEqualTo(202);
        String runId = submitted.json().get("id").asString();
        // Read as a person of the run's team: another team's key would not see it.
        String reader = keycloak.accessToken("alice");
        String approval = Await.until(
                        "a pending approval of run " + runId,
                        () -> api.get("/api/v1/approvals?status=pending&runId=" + runId, reader)
                                .json()
                                .get("items"),
                        items -> !items.isEmpty())
                .get(0)
                .get("id")
                .asString();

        Api.Response own = api.approve(approval, bob);
        assertThat(own.status()).as(own.body()).isEqualTo(403);
        assertThat(own.json().get("type").asString()).endsWith("separation-of-duties");

        browser.get(console("/#/approvals"));
        WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("article[data-approval='" + approval + "']")));
        WebElement approve = card.findElement(By.cssSelector("button.approve"));
        wait.until(ExpectedConditions.elementToBeClickable(approve));
        card.findElement(By.cssSelector("input.comment")).sendKeys("alice approves bob's restart");
        shot("sso-approval");
        approve.click();

        var decided = Await.until(
                "approval " + approval + " to be decided",
                () -> api.get("/api/v1/approvals/" + approval, reader).json(),
                a -> !a.get("status").asString().equals("pending"));
        assertThat(decided.get("status").asString()).isEqualTo("approved");
        assertThat(decided.get("decidedBy").asString()).isEqualTo("Alice Adams");
        api.awaitRunEnd(runId, reader);
    }

    @Test
    @Order(4)
    void signOut_endsTheConsoleSession_andTheProvidersToo() {
        browser.get(console("/"));
        wait.until(ExpectedConditions.elementToBeClickable(By.id("logout")));
        Cookie session = browser.manage().getCookieNamed("JSESSIONID");
        assertThat(session).isNotNull();
        assertThat(withSession(session).status()).isEqualTo(200);

        browser.findElement(By.id("logout")).click();
        // Signed out at Keycloak too (RP-initiated logout), and back at the console's sign-in page.
        WebElement note =
                wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#login-form .note")));
        assertThat(note.getText()).isEqualTo("You are signed out.");
        assertThat(browser.getCurrentUrl()).startsWith(console("/"));
        // The session is over on the server, not only forgotten by this browser.
        assertThat(withSession(session).status()).isEqualTo(401);
    }

    @Test
    @Order(5)
    void aPersonInNoMappedGroup_isToldWhy() {
        // Alice signed out at Keycloak too: signing in again asks who it is (signInAtKeycloak
        // waits for the login form).
        browser.get(console("/"));
        wait.until(ExpectedConditions.elementToBeClickable(By.id("sso-login"))).click();
        signInAtKeycloak("erin");
        WebElement note =
                wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#login-form .note")));
        assertThat(note.getText())
                .isEqualTo(
                        "Your account is in no group that Cadre maps to a team." + " Ask an admin to add you to one.");
        assertThat(browser.findElements(By.cssSelector("[data-testid=whoami]"))).isEmpty();
    }

    private void signInAtKeycloak(String user) {
        WebElement username = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("username")));
        assertThat(browser.getCurrentUrl()).startsWith(keycloak.issuer() + "/protocol/openid-connect/auth");
        // The console asked with PKCE.
        assertThat(browser.getCurrentUrl()).contains("code_challenge_method=S256");
        username.sendKeys(user);
        browser.findElement(By.id("password")).sendKeys(user + "-password");
        shot("sso-keycloak-" + user);
        browser.findElement(By.id("kc-login")).click();
    }

    private String sessionTeam() {
        Object team = ((org.openqa.selenium.JavascriptExecutor) browser)
                .executeAsyncScript("const done = arguments[arguments.length - 1];"
                        + "fetch('/api/v1/session/team').then((r) => r.json()).then((t) => done(t.current));");
        return String.valueOf(team);
    }

    private Api.Response withSession(Cookie session) {
        return api.send("GET", "/api/v1/session", null, null, Map.of("Cookie", "JSESSIONID=" + session.getValue()));
    }

    private String console(String path) {
        return "http://localhost:" + port + path;
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
