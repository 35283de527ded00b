package dev.cadre.platform.tools;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where {@code http_probe} may connect ({@code cadre.tools.probe.allow}). Without entries any public
 * address may be probed and loopback, private, link-local (169.254.169.254, the cloud metadata
 * service, included), unique-local, carrier-grade NAT, multicast and unspecified addresses may not.
 * With entries only what they name may be probed: a host name ({@code api.example.com}), a domain
 * ({@code *.example.com}) or an address block ({@code 10.1.0.0/16}, {@code 127.0.0.1/32}); an entry
 * is the operator's explicit word, so it also opens a private range it names.
 *
 * <p>The answer is the address to connect to: the name is resolved once here and the caller
 * connects to exactly that address, so a DNS answer that changes between check and connect (DNS
 * rebinding) cannot redirect the probe. A name with several addresses is refused if any of them is
 * refused.
 */
final class ProbeTargets {

    /** Resolves a host name; tests replace DNS with a fixed table. */
    @FunctionalInterface
    interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** The probe may not go there; the message names the setting, never what the name resolved to. */
    static final class Denied extends Exception {
        Denied(String message) {
            super(message);
        }
    }

    private static final Pattern HOST =
            Pattern.compile("(\\*\\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*");

    private record Cidr(byte[] network, int bits) {
        boolean contains(InetAddress a) {
            byte[] b = a.getAddress();
            if (b.length != network.length) {
                return false;
            }
            int full = bits / 8;
            for (int i = 0; i < full; i++) {
                if (b[i] != network[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (b[full] & mask) == (network[full] & mask);
        }
    }

    private final List<String> hosts = new ArrayList<>();
    private final List<String> domains = new ArrayList<>();
    private final List<Cidr> blocks = new ArrayList<>();
    private final Resolver resolver;

    /**
     * @param allow the configured entries; a malformed one fails start-up naming it
     */
    ProbeTargets(List<String> allow, Resolver resolver) {
        this.resolver = resolver;
        for (String raw : allow) {
            String e = raw.strip().toLowerCase(Locale.ROOT);
            if (e.isEmpty()) {
                continue;
            }
            if (e.contains("/")) {
                blocks.add(cidr(e));
            } else if (isIpLiteral(e)) {
                blocks.add(cidr(e + (e.contains(":") ? "/128" : "/32")));
            } else if (HOST.matcher(e).matches()) {
                if (e.startsWith("*.")) {
                    domains.add(e.substring(1));
                } else {
                    hosts.add(e);
                }
            } else {
                throw new IllegalArgumentException("cadre.tools.probe.allow: '" + raw
                        + "' is neither a host name (api.example.com, *.example.com) nor an address block"
                        + " (10.0.0.0/8, 127.0.0.1/32)");
            }
        }
    }

    private static Cidr cidr(String entry) {
        int slash = entry.indexOf('/');
        String address = entry.substring(0, slash);
        int bits;
        try {
            bits = Integer.parseInt(entry.substring(slash + 1));
        } catch (NumberFormatException e) {
            bits = -1;
        }
        if (!isIpLiteral(address)) {
            throw new IllegalArgumentException("cadre.tools.probe.allow: '" + entry + "' is not an address block: "
                    + address + " is no IP address");
        }
        byte[] network = literal(address).getAddress();
        if (bits < 0 || bits > network.length * 8) {
            throw new IllegalArgumentException(
                    "cadre.tools.probe.allow: '" + entry + "': the prefix length must be 0.." + network.length * 8);
        }
        return new Cidr(network, bits);
    }

    /** Whether any entry is configured (then only entries are allowed). */
    boolean restricted() {
        return !hosts.isEmpty() || !domains.isEmpty() || !blocks.isEmpty();
    }

    /** The one address to connect to for {@code host}, or why not. */
    InetAddress resolve(String host) throws Denied, UnknownHostException {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        boolean literal = isIpLiteral(h);
        InetAddress[] addresses = literal ? new InetAddress[] {literal(h)} : resolver.resolve(h);
        if (addresses.length == 0) {
            throw new UnknownHostException(host);
        }
        boolean named = !literal && (hosts.contains(h) || domains.stream().anyMatch(h::endsWith));
        for (InetAddress a : addresses) {
            if (!named && !allowed(a)) {
                throw new Denied("'" + host + "' is not an allowed probe target: "
                        + (restricted()
                                ? "it is not in cadre.tools.probe.allow"
                                : "loopback, private, link-local and other internal addresses are refused unless"
                                        + " cadre.tools.probe.allow names them"));
            }
        }
        return addresses[0];
    }

    private boolean allowed(InetAddress a) {
        if (blocks.stream().anyMatch(b -> b.contains(a))) {
            return true;
        }
        return !restricted() && !internal(a);
    }

    /** Loopback, private, link-local, unique-local, CGNAT, multicast, unspecified or broadcast. */
    static boolean internal(InetAddress a) {
        if (a.isLoopbackAddress()
                || a.isAnyLocalAddress()
                || a.isLinkLocalAddress()
                || a.isSiteLocalAddress()
                || a.isMulticastAddress()) {
            return true;
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet4Address) {
            int first = b[0] & 0xff;
            int second = b[1] & 0xff;
            return first == 0 // "this network"
                    || (first == 100 && second >= 64 && second < 128) // carrier-grade NAT
                    || (first == 192 && second == 0 && (b[2] & 0xff) == 0) // IETF protocol assignments
                    || (first == 198 && (second == 18 || second == 19)) // benchmarking
                    || first >= 240; // reserved and broadcast
        }
        if (a instanceof Inet6Address) {
            if ((b[0] & 0xfe) == 0xfc) { // fc00::/7 unique local
                return true;
            }
            // IPv4 embedded in IPv6 (::a.b.c.d, 64:ff9b::/96 NAT64): judge the IPv4 address inside.
            boolean compatible = true;
            for (int i = 0; i < 12; i++) {
                compatible &= b[i] == 0;
            }
            boolean nat64 =
                    (b[0] & 0xff) == 0x00 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b;
            for (int i = 4; nat64 && i < 12; i++) {
                nat64 = b[i] == 0;
            }
            if (compatible || nat64) {
                try {
                    return internal(InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, 12, 16)));
                } catch (UnknownHostException e) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isIpLiteral(String s) {
        return s.matches("\\d{1,3}(\\.\\d{1,3}){3}") || (s.contains(":") && s.matches("[0-9a-f:.]+"));
    }

    private static InetAddress literal(String s) {
        try {
            // A literal is parsed, never looked up.
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + s, e);
        }
    }
}
