package dev.cadre.platform.incidents;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Incident timelines in this process only: for a platform without a database, and for tests. */
public final class InMemoryIncidentTimeline implements IncidentTimeline {

    private final List<Stored> entries = new ArrayList<>();
    private final Map<String, List<Stored>> byIncident = new HashMap<>();
    private final Map<String, Sightings> sightings = new HashMap<>();
    private final Map<String, Instant> deliveries = new HashMap<>();
    private long lastSeq;

    @Override
    public synchronized long append(String incidentId, Instant at, TimelineEntry entry) {
        long seq = ++lastSeq;
        Stored stored = new Stored(seq, incidentId, at, entry);
        entries.add(stored);
        byIncident.computeIfAbsent(incidentId, k -> new ArrayList<>()).add(stored);
        if (entry.kind() == TimelineKind.OPENED || entry.kind() == TimelineKind.SIGHTING) {
            sightings.merge(
                    incidentId,
                    new Sightings(1, at),
                    (a, b) -> new Sightings(
                            a.count() + 1,
                            a.lastSeenAt() != null && a.lastSeenAt().isAfter(at) ? a.lastSeenAt() : at));
        }
        return seq;
    }

    @Override
    public synchronized List<Stored> read(String incidentId, long afterSeq, int limit) {
        List<Stored> out = new ArrayList<>();
        for (Stored s : byIncident.getOrDefault(incidentId, List.of())) {
            if (s.seq() > afterSeq && out.size() < limit) {
                out.add(s);
            }
        }
        return out;
    }

    @Override
    public synchronized List<Stored> latest(String incidentId, int limit) {
        List<Stored> all = byIncident.getOrDefault(incidentId, List.of());
        List<Stored> out = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0 && out.size() < limit; i--) {
            out.add(all.get(i));
        }
        return out;
    }

    @Override
    public synchronized List<Stored> since(long afterSeq, int limit) {
        List<Stored> out = new ArrayList<>();
        for (Stored s : entries) {
            if (s.seq() > afterSeq && out.size() < limit) {
                out.add(s);
            }
        }
        return out;
    }

    @Override
    public synchronized long latestSeq() {
        return lastSeq;
    }

    @Override
    public synchronized Sightings sightings(String incidentId) {
        return sightings.getOrDefault(incidentId, new Sightings(0, null));
    }

    @Override
    public synchronized boolean hasRef(String incidentId, TimelineKind kind, String ref) {
        return byIncident.getOrDefault(incidentId, List.of()).stream()
                .anyMatch(s -> s.incidentId().equals(incidentId)
                        && s.entry().kind() == kind
                        && ref.equals(s.entry().ref()));
    }

    @Override
    public synchronized boolean claimDelivery(String incidentId, String deliveryKey, Instant now, Duration window) {
        String key = incidentId + "\u0000" + deliveryKey;
        Instant at = deliveries.get(key);
        if (at != null && at.plus(window).isAfter(now)) {
            return false;
        }
        deliveries.put(key, now);
        return true;
    }

    @Override
    public synchronized boolean deliverySeen(String incidentId, String deliveryKey) {
        return deliveries.containsKey(incidentId + "\u0000" + deliveryKey);
    }

    @Override
    public synchronized long deleteEventsBefore(Instant before, Set<String> keep, int batch) {
        int size = entries.size();
        entries.removeIf(s -> s.at().isBefore(before) && !keep.contains(s.incidentId()));
        byIncident.entrySet().removeIf(e -> {
            if (!keep.contains(e.getKey())) {
                e.getValue().removeIf(s -> s.at().isBefore(before));
            }
            return e.getValue().isEmpty();
        });
        return size - entries.size();
    }

    @Override
    public synchronized long deleteDeliveriesBefore(Instant before, Set<String> keep, int batch) {
        int size = deliveries.size();
        deliveries
                .entrySet()
                .removeIf(e -> e.getValue().isBefore(before)
                        && !keep.contains(e.getKey().substring(0, e.getKey().indexOf('\u0000'))));
        return size - deliveries.size();
    }
}
