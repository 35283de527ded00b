package dev.cadre.agent.model;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Money as Cadre keeps it: amounts of the price table's currency rounded to its micro-unit (six
 * decimals), so a sum of prices reads {@code 0.001048}, never {@code 0.0010479999999999999}.
 */
public final class Costs {

    /** Decimals kept: the micro-unit of the currency. */
    public static final int SCALE = 6;

    private Costs() {}

    /** The amount rounded half-up to the micro-unit; a double that prints as its six-decimal value. */
    public static double round(double amount) {
        if (!Double.isFinite(amount)) {
            return amount;
        }
        return BigDecimal.valueOf(amount).setScale(SCALE, RoundingMode.HALF_UP).doubleValue();
    }

    /** The sum of two amounts, rounded to the micro-unit (adding doubles alone drifts). */
    public static double add(double a, double b) {
        return BigDecimal.valueOf(a)
                .add(BigDecimal.valueOf(b))
                .setScale(SCALE, RoundingMode.HALF_UP)
                .doubleValue();
    }
}
