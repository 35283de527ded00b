package dev.cadre.platform.cluster;

import dev.cadre.platform.runs.ExecutionSlots;
import dev.cadre.platform.runs.InProcessRunQueue;
import dev.cadre.platform.runs.LeaseOwner;
import dev.cadre.platform.runs.RunExecutor;
import dev.cadre.platform.runs.RunQueue;
import io.lettuce.core.RedisClient;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What makes several instances one cluster: a shared Redis (when {@code cadre.redis.url} is set)
 * and a name per instance. The embedded default has neither and is called {@code local}. The
 * cluster decides how runs are queued, so it provides the {@link RunQueue} that runs submits to.
 */
@Configuration(proxyBeanMethods = false)
public class ClusterConfiguration {

    /** This instance's name in leases and consumer groups. */
    public record Instance(String id, boolean clustered) {}

    @Bean
    Instance clusterInstance(
            @Value("${cadre.instance-id:}") String configured, @Value("${cadre.redis.url:}") String redisUrl) {
        boolean clustered = !redisUrl.isBlank();
        if (!configured.isBlank()) {
            return new Instance(configured, clustered);
        }
        if (!clustered) {
            // A single instance: a stable name lets it reclaim its own runs at once after a restart.
            return new Instance("local", false);
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "instance";
        }
        return new Instance(host + "-" + ProcessHandle.current().pid(), true);
    }

    /** Leases carry the instance's name, so a restarted single instance reclaims its own runs. */
    @Bean
    LeaseOwner leaseOwner(Instance instance) {
        return new LeaseOwner(instance.id());
    }

    /** In-process by default; a Redis Streams consumer group when the instance is part of a cluster. */
    @Bean
    RunQueue runQueue(
            RunExecutor executor,
            Instance instance,
            ObjectProvider<RedisClient> redis,
            @Value("${cadre.runs.max-concurrent:32}") int maxConcurrent,
            @Value("${cadre.runs.lease-ttl:PT15S}") Duration leaseTtl,
            @Value("${cadre.redis.prefix:cadre}") String prefix) {
        RedisClient client = redis.getIfAvailable();
        ExecutionSlots slots = new ExecutionSlots(maxConcurrent);
        if (client == null) {
            return new InProcessRunQueue(slots, executor::execute);
        }
        return new RedisRunQueue(client, prefix, instance.id(), slots, leaseTtl.multipliedBy(2), executor::execute);
    }

    /** Streamed text pieces reach readers on every instance (Redis pub/sub), not only the executing one. */
    @Bean(destroyMethod = "close")
    @ConditionalOnExpression("!'${cadre.redis.url:}'.isBlank()")
    RedisLiveRelay liveRelay(
            RedisClient redis, Instance instance, @Value("${cadre.redis.prefix:cadre}") String prefix) {
        return new RedisLiveRelay(redis, prefix, instance.id());
    }

    @Bean(destroyMethod = "shutdown")
    @ConditionalOnExpression("!'${cadre.redis.url:}'.isBlank()")
    RedisClient redisClient(@Value("${cadre.redis.url}") String url) {
        return RedisClient.create(url);
    }
}
