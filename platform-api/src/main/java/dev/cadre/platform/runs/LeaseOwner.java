package dev.cadre.platform.runs;

/**
 * The name under which this instance holds run leases. The cluster configuration provides it (with
 * the {@link RunQueue}), so runs needs to know nothing about how instances are named or clustered.
 */
public record LeaseOwner(String id) {

    public LeaseOwner {
        if (id.isBlank()) {
            throw new IllegalArgumentException("lease owner id must not be blank");
        }
    }
}
