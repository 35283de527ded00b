package dev.cadre.platform.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The address checks of http_probe, with DNS replaced by a fixed table. */
class ProbeTargetsTest {

    private static final Map<String, String[]> DNS = Map.of(
            "example.com", new String[] {"93.184.215.14"},
            "metadata.evil.test", new String[] {"169.254.169.254"},
            "mixed.evil.test", new String[] {"93.184.215.14", "10.0.0.7"},
            "prometheus.internal", new String[] {"10.1.2.3"},
            "api.corp.test", new String[] {"10.9.9.9"});

    private static InetAddress[] resolve(String host) throws UnknownHostException {
        String[] ips = DNS.get(host);
        if (ips == null) {
            throw new UnknownHostException(host);
        }
        InetAddress[] out = new InetAddress[ips.length];
        for (int i = 0; i < ips.length; i++) {
            out[i] = InetAddress.getByName(ips[i]);
        }
        return out;
    }

    private static ProbeTargets targets(String... allow) {
        return new ProbeTargets(List.of(allow), ProbeTargetsTest::resolve);
    }

    @Test
    void byDefault_publicAddressesPass_andInternalOnesAreRefused() throws Exception {
        ProbeTargets t = targets();
        assertThat(t.resolve("example.com").getHostAddress()).isEqualTo("93.184.215.14");
        for (String denied : List.of(
                "127.0.0.1",
                "127.1.2.3",
                "[::1]",
                "10.0.0.1",
                "172.16.5.4",
                "192.168.1.1",
                "169.254.169.254",
                "[fe80::1]",
                "[fd00::1]",
                "100.64.0.1",
                "0.0.0.0",
                "[::]",
                "[::ffff:127.0.0.1]",
                "[64:ff9b::a9fe:a9fe]",
                "metadata.evil.test")) {
            assertThatThrownBy(() -> t.resolve(denied))
                    .as(denied)
                    .isInstanceOf(ProbeTargets.Denied.class)
                    .hasMessageContaining("not an allowed probe target");
        }
        // The refusal never says what a name resolved to (no internal DNS through the probe).
        assertThatThrownBy(() -> t.resolve("metadata.evil.test")).hasMessageNotContaining("169.254");
    }

    @Test
    void aNameWithOneInternalAddress_isRefused_evenIfAnotherIsPublic() {
        assertThatThrownBy(() -> targets().resolve("mixed.evil.test")).isInstanceOf(ProbeTargets.Denied.class);
    }

    @Test
    void withEntries_onlyTheyPass_andTheyMayOpenAPrivateRange() throws Exception {
        ProbeTargets t = targets("prometheus.internal", "*.corp.test", "127.0.0.1/32");
        assertThat(t.resolve("prometheus.internal").getHostAddress()).isEqualTo("10.1.2.3");
        assertThat(t.resolve("api.corp.test").getHostAddress()).isEqualTo("10.9.9.9");
        assertThat(t.resolve("127.0.0.1").getHostAddress()).isEqualTo("127.0.0.1");
        assertThatThrownBy(() -> t.resolve("example.com")).isInstanceOf(ProbeTargets.Denied.class);
        assertThatThrownBy(() -> t.resolve("127.0.0.2")).isInstanceOf(ProbeTargets.Denied.class);
        assertThatThrownBy(() -> t.resolve("169.254.169.254")).isInstanceOf(ProbeTargets.Denied.class);
        assertThatThrownBy(() -> t.resolve("metadata.evil.test")).isInstanceOf(ProbeTargets.Denied.class);
    }

    @Test
    void theAddressReturnedIsTheOneChecked_soASecondLookupCannotRebindIt() throws Exception {
        int[] lookups = {0};
        // A rebinding DNS server: public on the first answer, metadata service afterwards.
        ProbeTargets t = new ProbeTargets(List.of(), host ->
                new InetAddress[] {InetAddress.getByName(lookups[0]++ == 0 ? "93.184.215.14" : "169.254.169.254")});
        InetAddress checked = t.resolve("rebind.evil.test");
        assertThat(checked.getHostAddress()).isEqualTo("93.184.215.14");
        assertThat(lookups[0]).isEqualTo(1);
    }

    @Test
    void aMalformedEntry_failsNamingIt() {
        assertThatThrownBy(() -> targets("10.0.0.0/40"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("10.0.0.0/40");
        assertThatThrownBy(() -> targets("http://x/"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cadre.tools.probe.allow");
    }
}
