package dev.cadre.agent.economy;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Seed 004's data: 300 deterministic East China order rows for June and July 2026, as a CRM would
 * return them. July's total is 12 % below June's, and the cause is in the rows: one channel x product
 * segment (by default distributors' air-conditioner orders) collapses while everything else moves by
 * a percent or two. The generator is seeded, so every run sees the same rows.
 */
public final class SalesOrders {

    /** One order row. */
    public record Order(
            String orderId,
            String date,
            String month,
            String region,
            String city,
            String channel,
            String product,
            String customer,
            int units,
            BigDecimal amount) {

        Order withAmount(int newUnits, BigDecimal newAmount) {
            return new Order(orderId, date, month, region, city, channel, product, customer, newUnits, newAmount);
        }

        /** The row as a JSON object, the way the data tool returns it. */
        void appendJson(StringBuilder out) {
            out.append("{\"order_id\":\"")
                    .append(orderId)
                    .append("\",\"date\":\"")
                    .append(date)
                    .append("\",\"month\":\"")
                    .append(month)
                    .append("\",\"region\":\"")
                    .append(region)
                    .append("\",\"city\":\"")
                    .append(city)
                    .append("\",\"channel\":\"")
                    .append(channel)
                    .append("\",\"product\":\"")
                    .append(product)
                    .append("\",\"customer\":\"")
                    .append(customer)
                    .append("\",\"units\":")
                    .append(units)
                    .append(",\"amount_cny\":")
                    .append(amount.toPlainString())
                    .append('}');
        }
    }

    /** The segment whose collapse causes the drop. */
    public record Segment(String channel, String product) {}

    /** Distributors stopped ordering air conditioners in July: the default cause. */
    public static final Segment DEFAULT_CAUSE = new Segment("Distributor", "Air conditioner");

    public static final String REGION = "East China";
    public static final String BASE_MONTH = "2026-06";
    public static final String MONTH = "2026-07";
    /** The month-on-month change the data is built to show. */
    public static final double DROP = -0.12;

    static final List<String> CHANNELS = List.of("Online", "Retail store", "Distributor");
    static final List<String> PRODUCTS =
            List.of("Air conditioner", "Refrigerator", "Washing machine", "Television", "Small appliance");
    private static final int[] UNIT_PRICE = {3_400, 4_100, 2_600, 3_800, 420};
    private static final List<String> CITIES =
            List.of("Shanghai", "Hangzhou", "Nanjing", "Suzhou", "Hefei", "Ningbo", "Jinan", "Wuxi");
    private static final List<String> CUSTOMERS = List.of(
            "Huatai Trading",
            "Jinling Home Electric",
            "Xihu Appliance Mall",
            "Pujiang Supply Co.",
            "Taihu Retail Group",
            "Yangtze Distribution",
            "Qiantang Electronics",
            "Huishan Home Store",
            "Online shop customer");
    /** Rows of every other segment, per month. */
    private static final int OTHER_ROWS = 143;
    /** The cause segment's orders: 11 in June, 3 left in July (300 rows in all). */
    private static final int JUNE_CAUSE_ROWS = 11;

    private static final int JULY_CAUSE_ROWS = 3;
    /** June's cause segment relative to all other segments together (then July lands near -85 % for it). */
    private static final double CAUSE_WEIGHT = 0.18;

    private SalesOrders() {}

    /** The 300 rows with the default cause. */
    public static List<Order> generate() {
        return generate(DEFAULT_CAUSE);
    }

    /** The 300 rows, July's drop caused by {@code cause}. */
    public static List<Order> generate(Segment cause) {
        if (!CHANNELS.contains(cause.channel()) || !PRODUCTS.contains(cause.product())) {
            throw new IllegalArgumentException("unknown segment " + cause);
        }
        Random random = new Random(20260731L);
        List<Order> june = new ArrayList<>();
        List<Order> july = new ArrayList<>();
        others(random, BASE_MONTH, cause, june);
        causeRows(random, BASE_MONTH, cause, JUNE_CAUSE_ROWS, june);
        // July's other orders are June's customers ordering again: the same segments, a unit more or less.
        for (int i = 0; i < OTHER_ROWS; i++) {
            Order o = june.get(i);
            int units = Math.max(1, o.units() + random.nextInt(3) - 1);
            july.add(row(random, MONTH, o.channel(), o.product(), units));
        }
        causeRows(random, MONTH, cause, JULY_CAUSE_ROWS, july);
        // Everything but the cause moves by +1 % in all (July's re-orders are scaled to that), and the few
        // orders left in the collapsed segment are sized so that the month lands on the -12 % of the
        // question: the rows, not a label, carry the answer.
        BigDecimal juneOthers = total(june.subList(0, OTHER_ROWS));
        // The segment that collapses was worth 18 % of the rest in June; its orders are scaled to that.
        BigDecimal juneCause = total(june.subList(OTHER_ROWS, june.size()));
        BigDecimal causeFactor =
                juneOthers.multiply(BigDecimal.valueOf(CAUSE_WEIGHT)).divide(juneCause, 10, RoundingMode.HALF_UP);
        int price = UNIT_PRICE[PRODUCTS.indexOf(cause.product())];
        for (int i = OTHER_ROWS; i < june.size(); i++) {
            Order o = june.get(i);
            BigDecimal amount = o.amount().multiply(causeFactor).setScale(2, RoundingMode.HALF_UP);
            june.set(i, o.withAmount(Math.max(1, amount.intValue() / price), amount));
        }
        BigDecimal julyOthers = total(july.subList(0, OTHER_ROWS));
        BigDecimal factor = juneOthers.multiply(BigDecimal.valueOf(1.01)).divide(julyOthers, 10, RoundingMode.HALF_UP);
        for (int i = 0; i < OTHER_ROWS; i++) {
            Order o = july.get(i);
            july.set(i, o.withAmount(o.units(), o.amount().multiply(factor).setScale(2, RoundingMode.HALF_UP)));
        }
        BigDecimal target = total(june).multiply(BigDecimal.valueOf(1 + DROP)).setScale(2, RoundingMode.HALF_UP);
        BigDecimal remaining = target.subtract(total(july.subList(0, OTHER_ROWS)));
        if (remaining.signum() <= 0) {
            throw new IllegalStateException("the generator cannot reach the -12 % drop with " + cause);
        }
        BigDecimal share = remaining.divide(BigDecimal.valueOf(JULY_CAUSE_ROWS), 2, RoundingMode.DOWN);
        for (int k = 0; k < JULY_CAUSE_ROWS; k++) {
            int i = OTHER_ROWS + k;
            BigDecimal amount = k == JULY_CAUSE_ROWS - 1
                    ? remaining.subtract(share.multiply(BigDecimal.valueOf(JULY_CAUSE_ROWS - 1L)))
                    : share;
            july.set(i, july.get(i).withAmount(Math.max(1, amount.intValue() / price), amount));
        }
        List<Order> all = new ArrayList<>(byDate(june));
        all.addAll(byDate(july));
        return List.copyOf(all);
    }

    /** Rows in date order, numbered in that order (as a CRM export lists them). */
    private static List<Order> byDate(List<Order> rows) {
        List<Order> sorted = new ArrayList<>(rows);
        sorted.sort(java.util.Comparator.comparing(Order::date));
        List<Order> out = new ArrayList<>(sorted.size());
        for (int i = 0; i < sorted.size(); i++) {
            Order o = sorted.get(i);
            out.add(new Order(
                    "EC-" + o.month().replace("-", "") + "-" + String.format(Locale.ROOT, "%04d", i + 1),
                    o.date(),
                    o.month(),
                    o.region(),
                    o.city(),
                    o.channel(),
                    o.product(),
                    o.customer(),
                    o.units(),
                    o.amount()));
        }
        return out;
    }

    private static void others(Random random, String month, Segment cause, List<Order> out) {
        while (out.size() < OTHER_ROWS) {
            String channel = CHANNELS.get(weighted(random, new int[] {40, 35, 25}));
            String product = PRODUCTS.get(weighted(random, new int[] {28, 20, 18, 16, 18}));
            if (channel.equals(cause.channel()) && product.equals(cause.product())) {
                continue;
            }
            out.add(row(random, month, channel, product, units(random, channel, 0)));
        }
    }

    private static void causeRows(Random random, String month, Segment cause, int rows, List<Order> out) {
        for (int i = 0; i < rows; i++) {
            out.add(row(random, month, cause.channel(), cause.product(), units(random, cause.channel(), 2)));
        }
    }

    private static int units(Random random, String channel, int extra) {
        return (channel.equals("Distributor") ? 4 + random.nextInt(9) : 1 + random.nextInt(3)) + extra;
    }

    private static Order row(Random random, String month, String channel, String product, int units) {
        int p = PRODUCTS.indexOf(product);
        double discount = random.nextInt(16) / 100.0;
        BigDecimal amount =
                BigDecimal.valueOf(units * UNIT_PRICE[p] * (1 - discount)).setScale(2, RoundingMode.HALF_UP);
        int day = 1 + random.nextInt(month.endsWith("06") ? 30 : 31);
        String customer =
                channel.equals("Online") ? CUSTOMERS.getLast() : CUSTOMERS.get(random.nextInt(CUSTOMERS.size() - 1));
        return new Order(
                "",
                month + "-" + String.format(Locale.ROOT, "%02d", day),
                month,
                REGION,
                CITIES.get(random.nextInt(CITIES.size())),
                channel,
                product,
                customer,
                units,
                amount);
    }

    private static int weighted(Random random, int[] weights) {
        int sum = 0;
        for (int w : weights) {
            sum += w;
        }
        int r = random.nextInt(sum);
        for (int i = 0; i < weights.length; i++) {
            r -= weights[i];
            if (r < 0) {
                return i;
            }
        }
        return weights.length - 1;
    }

    /** The sum of the rows' amounts. */
    public static BigDecimal total(List<Order> rows) {
        BigDecimal sum = BigDecimal.ZERO;
        for (Order o : rows) {
            sum = sum.add(o.amount());
        }
        return sum;
    }

    /** The rows as a JSON array. */
    public static String toJson(List<Order> rows) {
        StringBuilder out = new StringBuilder(rows.size() * 220);
        out.append('[');
        for (int i = 0; i < rows.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            rows.get(i).appendJson(out);
        }
        return out.append(']').toString();
    }
}
