package dev.cadre.platform.cluster;

import io.lettuce.core.RedisClient;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What makes several instances one cluster: a shared Redis (when {@code cadre.redis.url} is set)
 * and a name per instance. The embedded default has neither and is called {@code local}.
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

    @Bean(destroyMethod = "shutdown")
    @ConditionalOnExpression("!'${cadre.redis.url:}'.isBlank()")
    RedisClient redisClient(@Value("${cadre.redis.url}") String url) {
        return RedisClient.create(url);
    }
}
