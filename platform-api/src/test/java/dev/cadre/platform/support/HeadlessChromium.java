package dev.cadre.platform.support;

import java.nio.file.Path;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The one set of Chromium flags the console's browser tests and the console benchmark use: headless
 * as root, and without the background connections this machine's closed network refuses.
 */
public final class HeadlessChromium {

    public static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    public static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private HeadlessChromium() {}

    /** Options for a 1440×1000 headless window with its own fresh {@code profile} directory. */
    public static ChromeOptions options(Path profile) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--window-size=1440,1000",
                "--user-data-dir=" + profile);
        return options;
    }
}
