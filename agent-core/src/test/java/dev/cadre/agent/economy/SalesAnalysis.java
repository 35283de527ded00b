package dev.cadre.agent.economy;

import dev.cadre.agent.economy.SalesOrders.Order;
import dev.cadre.agent.economy.SalesOrders.Segment;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * What the analysis tool computes from the rows: the month-on-month change of a region, the change of
 * every channel x product segment, and the segment that explains the drop (the largest fall, with its
 * share of the net change). Nothing in it knows which segment the data was built around.
 *
 * @param text the tool's answer: a few lines, which is all the analysis agent (and, through its
 *     summary, the orchestrator) reads
 */
public record SalesAnalysis(
        String region,
        String baseMonth,
        String month,
        BigDecimal baseTotal,
        BigDecimal total,
        double change,
        Segment cause,
        BigDecimal causeBase,
        BigDecimal causeNow,
        double causeShareOfChange,
        double othersChange,
        String text) {

    /** Analyses {@code rows} of {@code region}, {@code month} against {@code baseMonth}. */
    public static SalesAnalysis of(List<Order> rows, String region, String baseMonth, String month) {
        Map<Segment, BigDecimal[]> segments = new LinkedHashMap<>();
        Map<String, BigDecimal[]> channels = new LinkedHashMap<>();
        Map<String, BigDecimal[]> products = new LinkedHashMap<>();
        Map<Segment, int[]> orders = new LinkedHashMap<>();
        BigDecimal[] totals = {BigDecimal.ZERO, BigDecimal.ZERO};
        int[] counts = new int[2];
        for (Order o : rows) {
            if (!o.region().equals(region)) {
                continue;
            }
            int at = o.month().equals(baseMonth) ? 0 : o.month().equals(month) ? 1 : -1;
            if (at < 0) {
                continue;
            }
            Segment s = new Segment(o.channel(), o.product());
            add(segments, s, at, o.amount());
            add(channels, o.channel(), at, o.amount());
            add(products, o.product(), at, o.amount());
            orders.computeIfAbsent(s, k -> new int[2])[at]++;
            totals[at] = totals[at].add(o.amount());
            counts[at]++;
        }
        if (counts[0] == 0 || counts[1] == 0) {
            throw new IllegalArgumentException(
                    "no orders of " + region + " in " + (counts[0] == 0 ? baseMonth : month));
        }
        Segment cause = null;
        BigDecimal worst = null;
        for (Map.Entry<Segment, BigDecimal[]> e : segments.entrySet()) {
            BigDecimal delta = e.getValue()[1].subtract(e.getValue()[0]);
            if (worst == null || delta.compareTo(worst) < 0) {
                worst = delta;
                cause = e.getKey();
            }
        }
        BigDecimal[] c = segments.get(cause);
        BigDecimal net = totals[1].subtract(totals[0]);
        double change = ratio(totals[1], totals[0]);
        double share = net.signum() == 0 ? 0 : worst.doubleValue() / net.doubleValue();
        double othersChange = ratio(totals[1].subtract(c[1]), totals[0].subtract(c[0]));
        int[] causeOrders = orders.get(cause);
        StringBuilder text = new StringBuilder(640);
        text.append(String.format(
                Locale.ROOT,
                "%s sales %s vs %s: %,.2f CNY vs %,.2f CNY (%+.1f %%), %d vs %d orders. ",
                region,
                month,
                baseMonth,
                totals[1],
                totals[0],
                change * 100,
                counts[1],
                counts[0]));
        text.append(String.format(
                Locale.ROOT,
                "Cause: %s x %s fell from %,.2f to %,.2f CNY (%+.1f %%, %d -> %d orders), %.0f %% of the net"
                        + " change; all other segments together %+.1f %%. ",
                cause.channel(),
                cause.product(),
                c[0],
                c[1],
                ratio(c[1], c[0]) * 100,
                causeOrders[0],
                causeOrders[1],
                share * 100,
                othersChange * 100));
        text.append("By channel: ")
                .append(changes(channels, Function.identity()))
                .append(". ");
        text.append("By product: ")
                .append(changes(products, Function.identity()))
                .append('.');
        return new SalesAnalysis(
                region,
                baseMonth,
                month,
                totals[0],
                totals[1],
                change,
                cause,
                c[0],
                c[1],
                share,
                othersChange,
                text.toString());
    }

    private static <K> void add(Map<K, BigDecimal[]> map, K key, int at, BigDecimal amount) {
        BigDecimal[] v = map.computeIfAbsent(key, k -> new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
        v[at] = v[at].add(amount);
    }

    private static double ratio(BigDecimal now, BigDecimal base) {
        return base.signum() == 0 ? 0 : now.doubleValue() / base.doubleValue() - 1;
    }

    private static <K> String changes(Map<K, BigDecimal[]> map, Function<K, String> name) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<K, BigDecimal[]> e : map.entrySet()) {
            if (!out.isEmpty()) {
                out.append(", ");
            }
            out.append(name.apply(e.getKey()))
                    .append(' ')
                    .append(String.format(Locale.ROOT, "%+.1f %%", ratio(e.getValue()[1], e.getValue()[0]) * 100));
        }
        return out.toString();
    }
}
