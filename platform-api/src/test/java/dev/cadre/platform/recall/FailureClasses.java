package dev.cadre.platform.recall;

import java.util.List;

/**
 * The failure classes of the labelled retrieval set: what a class's incidents look like (alert names
 * shared with its look-alikes, paraphrased summaries and findings) and what caused and fixed them.
 * Classes are grouped in families whose alerts share words but not causes (a full disk from logs,
 * from container images, from a deleted-but-open file; a 5xx burst from a bad release or from a slow
 * upstream), so a match on the alert's name alone is not enough. The last two summaries and the last
 * finding of each class are held out: only queries use them, so queries are paraphrases of the past.
 */
final class FailureClasses {

    /** Summaries past incidents use; the rest are the queries'. */
    static final int PAST_SUMMARIES = 4;

    /** Findings past incidents use; the rest are the queries'. */
    static final int PAST_FINDINGS = 3;

    record FailureClass(
            String id,
            String kind,
            List<String> alerts,
            List<String> summaries,
            List<String> findings,
            List<String> causes,
            List<String> fixes,
            String action) {}

    private FailureClasses() {}

    static final List<FailureClass> ALL = List.of(
            new FailureClass(
                    "disk-logs",
                    "HOST",
                    List.of("HostOutOfDiskSpace", "FilesystemAlmostFull", "DiskSpaceLow"),
                    List.of(
                            "Filesystem / is {pct}% full",
                            "Root volume has less than {n} GB free",
                            "Disk usage on / above {pct}%",
                            "Free space on the root filesystem is running out",
                            "Only {n} GB left on /, growing quickly",
                            "The system disk will be full within hours"),
                    List.of(
                            "/var/log holds {n} GB of uncompressed application logs; logrotate has not run since the config change",
                            "du shows /var/log/app is {n} GB, rotated logs are not compressed",
                            "log files under /var/log grew to {n} GB because rotation stopped",
                            "the application log directory keeps growing, no rotated files since last week ({n} GB)"),
                    List.of(
                            "log rotation stopped after a logrotate config change, application logs filled the disk",
                            "logrotate was broken so logs in /var/log were never rotated or compressed"),
                    List.of(
                            "fixed the logrotate config, compressed and removed old logs",
                            "ran logrotate by hand and repaired its configuration"),
                    "rotate-logs"),
            new FailureClass(
                    "disk-docker",
                    "HOST",
                    List.of("HostOutOfDiskSpace", "FilesystemAlmostFull", "DiskSpaceLow"),
                    List.of(
                            "Filesystem /var/lib/docker is {pct}% full",
                            "Disk usage above {pct}% on the container volume",
                            "Build agent disk is nearly full",
                            "Less than {n} GB free on the docker data disk",
                            "Container storage volume almost out of space",
                            "The image store filesystem is filling up"),
                    List.of(
                            "docker images and build cache take {n} GB, most images dangling",
                            "docker system df reports {n} GB reclaimable in unused images",
                            "/var/lib/docker/overlay2 holds {n} GB of old image layers",
                            "hundreds of untagged container images left by CI builds use {n} GB"),
                    List.of(
                            "old container images and build cache accumulated on the build host",
                            "CI builds left dangling docker images and layers that were never pruned"),
                    List.of(
                            "pruned unused docker images and build cache, added a nightly prune",
                            "ran docker system prune and scheduled image garbage collection"),
                    "docker-prune"),
            new FailureClass(
                    "disk-inodes",
                    "HOST",
                    List.of("HostOutOfInodes", "FilesystemAlmostFull", "DiskSpaceLow"),
                    List.of(
                            "Filesystem /tmp has {pct}% of inodes used",
                            "Inode usage above {pct}% on /",
                            "No inodes left to create files, disk space still free",
                            "Cannot create files: out of inodes",
                            "Inode exhaustion on the data volume while bytes are available",
                            "File count limit of the filesystem nearly reached"),
                    List.of(
                            "{n} thousand tiny session files in /tmp/sessions exhaust the inodes",
                            "df -i shows {pct}% inodes used, millions of small php session files",
                            "a directory holds {n} thousand zero-byte session files never cleaned up",
                            "session garbage collection is off so small files pile up by the million"),
                    List.of(
                            "session garbage collection was disabled and millions of small session files used all inodes",
                            "tiny session files were never cleaned, exhausting the inode table"),
                    List.of(
                            "deleted stale session files and re-enabled session garbage collection",
                            "cleaned the sessions directory and added a cleanup cron"),
                    "clean-sessions"),
            new FailureClass(
                    "disk-deleted-open",
                    "HOST",
                    List.of("HostOutOfDiskSpace", "FilesystemAlmostFull", "DiskSpaceLow"),
                    List.of(
                            "Filesystem / is {pct}% full but no large files found",
                            "Disk almost full on /, du and df disagree",
                            "Root volume usage {pct}% with no visible culprit",
                            "Free space keeps falling though nothing large on disk",
                            "df reports the disk full while du sums to far less",
                            "Space is used by something that does not show up in the directory tree"),
                    List.of(
                            "lsof shows a deleted {n} GB log file still held open by the java process",
                            "space held by deleted files: lsof +L1 lists {n} GB of unlinked files open",
                            "a process keeps writing to a file that was removed, {n} GB not released",
                            "the deleted file is still open by the daemon so its blocks are not freed"),
                    List.of(
                            "a log file was deleted while the service still held it open, so the space was never freed",
                            "a long-running process kept a deleted file open and kept writing to it"),
                    List.of(
                            "restarted the service holding the deleted file, space came back",
                            "restarted the process so the kernel released the unlinked file"),
                    "restart-service"),
            new FailureClass(
                    "disk-failing-drive",
                    "HOST",
                    List.of("HostDiskIOLatencyHigh", "DiskSlow", "HostDiskErrors"),
                    List.of(
                            "Disk read latency above {n} ms on sdb",
                            "I/O wait high on the database host, disk slow",
                            "Disk operations taking {n} ms on average",
                            "Storage device responding slowly, I/O queue long",
                            "Block device latency spikes and read errors",
                            "The data disk became very slow and reports errors"),
                    List.of(
                            "SMART reports {n} reallocated sectors and pending sectors on sdb",
                            "kernel log shows I/O errors and resets on the ata link of sdb",
                            "smartctl says the drive failed its self test, {n} uncorrectable errors",
                            "medium errors in dmesg, the disk is dying"),
                    List.of(
                            "the physical drive was failing, with reallocated and pending sectors",
                            "a hardware fault on the data disk caused I/O errors and latency"),
                    List.of(
                            "replaced the failing disk and rebuilt the RAID array",
                            "swapped the drive and restored the volume"),
                    "replace-disk"),
            new FailureClass(
                    "cpu-runaway",
                    "HOST",
                    List.of("HostHighCpuLoad", "CpuUsageHigh", "HostCpuSaturated"),
                    List.of(
                            "CPU usage above {pct}% for 15 minutes",
                            "Load average {n} on a 4 core host",
                            "Host CPU saturated",
                            "Processor busy at {pct}% continuously",
                            "All cores pegged at full utilisation",
                            "The machine is CPU bound and sluggish"),
                    List.of(
                            "one process, a stuck report cron job, uses {pct}% CPU in a busy loop",
                            "top shows a single runaway script spinning at 100% of a core for hours",
                            "a cron job from last night never exited and burns CPU in a loop",
                            "a hung batch script loops forever consuming a whole core"),
                    List.of(
                            "a cron job got stuck in an infinite loop and consumed the CPU",
                            "a runaway batch process spun in a busy loop"),
                    List.of(
                            "killed the runaway process and fixed the job's exit condition",
                            "terminated the stuck cron job"),
                    "kill-process"),
            new FailureClass(
                    "cpu-steal",
                    "HOST",
                    List.of("HostHighCpuLoad", "CpuUsageHigh", "HostCpuStealHigh"),
                    List.of(
                            "CPU usage above {pct}% while request rate unchanged",
                            "Load average high, applications slow",
                            "CPU steal time above {pct}%",
                            "Host CPU looks saturated without more traffic",
                            "The VM gets only part of its CPU, everything slow",
                            "Hypervisor taking CPU away from the guest"),
                    List.of(
                            "mpstat shows {pct}% steal time, the hypervisor is oversubscribed",
                            "steal time on the virtual machine is {pct}%, a noisy neighbour on the same hypervisor",
                            "no process uses much CPU itself; st column in top is {pct}%",
                            "the cloud host is shared with a noisy neighbour taking the cores"),
                    List.of(
                            "a noisy neighbour on the same hypervisor caused high CPU steal",
                            "the virtual machine's physical host was oversubscribed"),
                    List.of(
                            "migrated the instance to another hypervisor host",
                            "stopped and started the VM so it moved to a different physical host"),
                    "migrate-instance"),
            new FailureClass(
                    "cpu-gc-thrash",
                    "HOST",
                    List.of("HostHighCpuLoad", "CpuUsageHigh", "JvmGcTimeHigh"),
                    List.of(
                            "CPU usage above {pct}% on the application server",
                            "Java service using all CPU, response times up",
                            "JVM spends {pct}% of time in garbage collection",
                            "High CPU and long pauses in the JVM",
                            "Application threads stall while the collector runs constantly",
                            "The JVM is busy collecting garbage instead of serving"),
                    List.of(
                            "GC logs show back-to-back full collections, old generation {pct}% full after each",
                            "jstat: full GC every few seconds, heap too small for the working set",
                            "the collector runs continuously, -Xmx is {n} MB while live data needs more",
                            "heap almost full after every collection, garbage collector thrashing"),
                    List.of(
                            "the JVM heap was too small for the working set, so the garbage collector thrashed",
                            "max heap setting too low after traffic growth caused constant full GCs"),
                    List.of("raised -Xmx and restarted the service", "increased the heap size of the JVM"),
                    "raise-heap"),
            new FailureClass(
                    "mem-leak",
                    "HOST",
                    List.of("HostOutOfMemory", "MemoryUsageHigh", "HostOomKillDetected"),
                    List.of(
                            "Available memory below {pct}%",
                            "Memory usage climbing for days",
                            "OOM killer invoked on the host",
                            "Host running out of RAM",
                            "Resident memory of the service keeps growing without bound",
                            "The kernel killed a process to free memory"),
                    List.of(
                            "RSS of the worker grows {n} MB per hour and never drops, a leak",
                            "heap dump shows a cache map growing without eviction, {n} MB retained",
                            "memory of the api process rises linearly since the last release until the oom killer",
                            "process memory creeps up steadily and is never released, classic leak"),
                    List.of(
                            "a memory leak in the application (an unbounded cache) grew until the OOM killer struck",
                            "the service leaked memory through a cache without eviction"),
                    List.of(
                            "restarted the service and shipped a patch bounding the cache",
                            "deployed the fix for the leak and restarted"),
                    "restart-service"),
            new FailureClass(
                    "mem-pagecache",
                    "HOST",
                    List.of("HostOutOfMemory", "MemoryUsageHigh", "HostMemoryPressure"),
                    List.of(
                            "Memory used above {pct}%",
                            "RAM almost fully used on the file server",
                            "Memory usage {pct}% but no swapping",
                            "Used memory high, applications fine",
                            "Memory looks exhausted though nothing is slow",
                            "Host reports little free RAM"),
                    List.of(
                            "most of the used memory is page cache, MemAvailable still {n} GB",
                            "free -m shows buff/cache {n} GB, the kernel will reclaim it",
                            "no pressure: no swap, no OOM, memory used by filesystem cache",
                            "the alert counts reclaimable cache as used; available memory is plenty"),
                    List.of(
                            "false alarm: the alert counted the page cache as used memory",
                            "the memory alert used MemFree instead of MemAvailable"),
                    List.of(
                            "changed the alert rule to use MemAvailable",
                            "fixed the alert expression; no action on the host"),
                    "tune-alert"),
            new FailureClass(
                    "swap-storm",
                    "HOST",
                    List.of("HostSwapping", "MemoryUsageHigh", "HostOutOfMemory"),
                    List.of(
                            "Swap usage above {pct}%",
                            "Host swapping heavily, high page-in rate",
                            "Memory pressure with constant swapping",
                            "Swap in/out rate {n} pages per second",
                            "Machine thrashes pages to disk and back",
                            "Everything slow while the box pages heavily"),
                    List.of(
                            "{n} worker processes configured, each {n} MB, more than RAM",
                            "the worker pool was raised to {n} in the last config change and overcommits memory",
                            "too many gunicorn workers for the memory of the host, vmstat shows si/so high",
                            "process count doubled after the config push, memory overcommitted into swap"),
                    List.of(
                            "too many worker processes configured for the host's memory, causing swapping",
                            "a config change doubled the worker count and memory was overcommitted"),
                    List.of("reduced the worker count back and restarted", "reverted the worker pool size"),
                    "reduce-workers"),
            new FailureClass(
                    "k8s-oom-limit",
                    "POD",
                    List.of("KubePodOOMKilled", "KubePodCrashLooping", "ContainerMemoryNearLimit"),
                    List.of(
                            "Container app in pod was OOMKilled",
                            "Pod restarted {n} times, last state OOMKilled",
                            "Container memory at {pct}% of its limit",
                            "Pod killed for exceeding its memory limit",
                            "The container hits its memory ceiling and gets killed",
                            "Kubernetes terminated the container: out of memory"),
                    List.of(
                            "memory usage {n} Mi against a {n} Mi limit; the new release needs more at startup",
                            "since the last deploy working set rose {pct}% and the limit was not raised",
                            "the container's limit of {n} Mi is below its steady usage after the upgrade",
                            "normal usage now exceeds the configured memory limit, no leak in the graph"),
                    List.of(
                            "the memory limit was too low for the new release's normal usage",
                            "the container limit was not raised when the release increased memory needs"),
                    List.of(
                            "raised the memory limit in the deployment",
                            "increased resources.limits.memory and rolled out"),
                    "raise-memory-limit"),
            new FailureClass(
                    "k8s-crashloop-config",
                    "POD",
                    List.of("KubePodCrashLooping", "KubeDeploymentReplicasMismatch", "KubePodNotReady"),
                    List.of(
                            "Pod is crash looping",
                            "Container restarting repeatedly, back-off",
                            "Pod in CrashLoopBackOff for {n} minutes",
                            "Deployment has no ready replicas",
                            "The container exits right after it starts, over and over",
                            "Workload keeps failing at startup"),
                    List.of(
                            "container log: missing required environment variable DATABASE_URL; configmap key removed",
                            "startup fails reading config: the secret {n} was deleted from the namespace",
                            "exit code 1, log says configuration key not found after the configmap edit",
                            "the app refuses to boot because a config entry it needs is gone"),
                    List.of(
                            "a configmap edit removed a key the application needs at startup",
                            "required configuration (a secret) was missing, so the container exited"),
                    List.of("restored the configmap key and restarted the pods", "re-created the missing secret"),
                    "restore-config"),
            new FailureClass(
                    "k8s-crashloop-release",
                    "DEPLOYMENT",
                    List.of("KubePodCrashLooping", "KubeDeploymentReplicasMismatch", "KubeDeploymentRolloutStuck"),
                    List.of(
                            "Pods of the new revision crash looping",
                            "Rollout stuck, new pods restarting",
                            "Deployment rollout not progressing",
                            "Replicas of the latest version in CrashLoopBackOff",
                            "The fresh rollout keeps failing while the old replica set is fine",
                            "New version's pods die immediately after the deploy"),
                    List.of(
                            "new image v{n} panics on start with a nil pointer; previous revision healthy",
                            "only pods of revision {n} crash, stack trace in the new code",
                            "the release shipped a bug: segfault in the new build at startup",
                            "container of the latest image exits with a panic from the new code path"),
                    List.of("a bad release crashed at startup", "the new image had a startup bug"),
                    List.of(
                            "rolled the deployment back to the previous revision",
                            "kubectl rollout undo to the last good revision"),
                    "rollback-deployment"),
            new FailureClass(
                    "k8s-imagepull",
                    "POD",
                    List.of("KubePodNotReady", "KubeImagePullBackOff", "KubeDeploymentReplicasMismatch"),
                    List.of(
                            "Pod stuck in ImagePullBackOff",
                            "Cannot pull container image",
                            "New pods not starting, image pull errors",
                            "ErrImagePull on {n} pods",
                            "Kubelet fails to fetch the image from the registry",
                            "Pods wait forever for their image"),
                    List.of(
                            "pull fails with 401 unauthorized: the registry pull secret token expired",
                            "imagePullSecret credentials rotated in the registry but not in the cluster",
                            "events: failed to pull image, authentication required",
                            "the registry rejects the cluster's credentials, login expired"),
                    List.of(
                            "the registry credentials in the pull secret expired",
                            "imagePullSecret held a rotated, invalid token"),
                    List.of("renewed the registry pull secret", "updated the imagePullSecret with a new token"),
                    "renew-pull-secret"),
            new FailureClass(
                    "k8s-pending",
                    "POD",
                    List.of("KubePodNotScheduled", "KubePodNotReady", "KubeDeploymentReplicasMismatch"),
                    List.of(
                            "Pods pending for more than {n} minutes",
                            "Pod cannot be scheduled",
                            "Replicas unavailable, pods Pending",
                            "Scheduler cannot place {n} pods",
                            "Workload waits for a node with room",
                            "New replicas never get a node"),
                    List.of(
                            "FailedScheduling: 0/{n} nodes available, insufficient cpu",
                            "cluster autoscaler at max nodes, requests exceed allocatable",
                            "every node is full on cpu requests, scheduler reports insufficient resources",
                            "no node has enough free cpu for the requested amount"),
                    List.of(
                            "the cluster ran out of schedulable CPU and the autoscaler was at its maximum",
                            "node pool capacity was exhausted"),
                    List.of("raised the node pool maximum and added nodes", "scaled the node pool up"),
                    "scale-node-pool"),
            new FailureClass(
                    "k8s-liveness",
                    "POD",
                    List.of("KubePodCrashLooping", "KubePodRestartsHigh", "KubePodNotReady"),
                    List.of(
                            "Pod restarted {n} times in an hour",
                            "Container restarts increasing",
                            "Pods restart under load",
                            "Frequent container restarts, no crash in logs",
                            "Kubelet keeps killing healthy-looking containers",
                            "Restarts pile up whenever traffic peaks"),
                    List.of(
                            "events: liveness probe failed, timeout 1s; the health endpoint takes {n} ms under load",
                            "kubelet kills the container after liveness probe timeouts, app log shows no error",
                            "probe timeoutSeconds is 1 while /health answers slowly at peak",
                            "health check too strict: slow answers at peak count as dead"),
                    List.of(
                            "the liveness probe timeout was too strict for the health endpoint under load",
                            "kubelet restarted healthy containers because of an aggressive liveness probe"),
                    List.of("raised the liveness probe timeout and period", "relaxed the probe settings"),
                    "tune-probe"),
            new FailureClass(
                    "k8s-pvc-full",
                    "POD",
                    List.of("KubePersistentVolumeFillingUp", "FilesystemAlmostFull", "DiskSpaceLow"),
                    List.of(
                            "PersistentVolume is {pct}% full",
                            "Volume claim almost out of space",
                            "Disk of the database pod nearly full",
                            "PVC free space below {n}%",
                            "The database volume in the cluster is filling up",
                            "Stateful pod storage running out"),
                    List.of(
                            "postgres data directory on the PVC grew to {n} Gi with WAL files",
                            "WAL archiving is failing so pg_wal keeps growing on the volume",
                            "the persistent volume holds {n} Gi of write-ahead log segments",
                            "write-ahead logs accumulate because the archive command errors"),
                    List.of(
                            "WAL archiving failed so write-ahead logs filled the database volume",
                            "the archive command broke and WAL segments piled up on the PVC"),
                    List.of(
                            "fixed the archive command and expanded the persistent volume claim",
                            "repaired WAL archiving, then resized the PVC"),
                    "expand-pvc"),
            new FailureClass(
                    "k8s-node-notready",
                    "HOST",
                    List.of("KubeNodeNotReady", "KubeNodeUnreachable", "KubeletDown"),
                    List.of(
                            "Node NotReady for {n} minutes",
                            "Kubernetes node not ready",
                            "Kubelet stopped posting status",
                            "Node unreachable, pods being evicted",
                            "A worker machine dropped out of the cluster",
                            "Cluster lost contact with a node"),
                    List.of(
                            "kubelet service crashed after the containerd upgrade, systemctl shows failed",
                            "the kubelet process is not running; journal shows it exited with a config error",
                            "kubelet down since the package update, node heartbeats stopped",
                            "the node agent died after the runtime upgrade"),
                    List.of(
                            "the kubelet crashed after a container runtime upgrade",
                            "a package upgrade left kubelet failing to start"),
                    List.of("fixed the kubelet config and restarted kubelet", "restarted the kubelet service"),
                    "restart-kubelet"),
            new FailureClass(
                    "tls-expired",
                    "SERVICE",
                    List.of("SSLCertExpiringSoon", "ProbeFailed", "HttpsEndpointDown"),
                    List.of(
                            "TLS certificate expires in {n} days",
                            "HTTPS probe failing",
                            "Endpoint returns certificate errors",
                            "Clients report SSL handshake failures",
                            "Browsers warn the site is not secure",
                            "Secure connections to the endpoint are refused by clients"),
                    List.of(
                            "the certificate notAfter passed; cert-manager renewal failed on the ACME challenge",
                            "openssl s_client shows the certificate expired {n} hours ago",
                            "automatic renewal did not run, the served certificate is out of date",
                            "the served cert is past its validity date"),
                    List.of(
                            "the TLS certificate expired because automatic renewal failed",
                            "certificate renewal broke and the certificate lapsed"),
                    List.of(
                            "renewed the certificate and fixed the ACME challenge",
                            "issued a new certificate by hand and repaired renewal"),
                    "renew-certificate"),
            new FailureClass(
                    "dns-failures",
                    "SERVICE",
                    List.of("CoreDNSErrorsHigh", "ProbeFailed", "HttpErrorsHigh"),
                    List.of(
                            "DNS lookups failing for internal names",
                            "Services cannot resolve each other",
                            "Name resolution errors {pct}%",
                            "Intermittent SERVFAIL from cluster DNS",
                            "Lookups of service hostnames time out now and then",
                            "Calls fail with unknown host"),
                    List.of(
                            "coredns pods CPU throttled at their limit, {n} queries per second",
                            "only {n} coredns replicas for a cluster that doubled, queries time out",
                            "the DNS servers are overloaded and drop queries",
                            "cluster DNS under-provisioned for the query volume"),
                    List.of("CoreDNS was overloaded and throttled", "too few DNS replicas for the query load"),
                    List.of("scaled coredns up and raised its cpu limit", "added coredns replicas"),
                    "scale-coredns"),
            new FailureClass(
                    "db-pool",
                    "SERVICE",
                    List.of("DatabaseConnectionsExhausted", "HttpLatencyHigh", "HttpErrorsHigh"),
                    List.of(
                            "Connection pool exhausted",
                            "Requests waiting for a database connection",
                            "Timeouts acquiring JDBC connections",
                            "Service latency high, pool wait time {n} ms",
                            "Threads block waiting to borrow a connection",
                            "No free connections left for requests"),
                    List.of(
                            "all {n} pool connections held by a report query running for {n} minutes",
                            "pg_stat_activity: long running analytics queries hold the connections idle in transaction",
                            "a slow query holds every connection, the pool is at its maximum",
                            "connections stay busy in a transaction that never commits"),
                    List.of(
                            "long-running queries held every connection of the pool",
                            "connections left idle in transaction exhausted the pool"),
                    List.of(
                            "killed the long queries and set a statement timeout",
                            "terminated the idle-in-transaction sessions"),
                    "kill-queries"),
            new FailureClass(
                    "db-replica-lag",
                    "SERVICE",
                    List.of("PostgresReplicationLag", "DatabaseReplicaLagging", "StaleReads"),
                    List.of(
                            "Replica lag {n} seconds",
                            "Read replica falling behind the primary",
                            "Replication delay growing",
                            "Standby is {n} MB of WAL behind",
                            "Users read stale data from the replica",
                            "The hot standby cannot keep up"),
                    List.of(
                            "a long transaction on the replica blocks WAL replay (hot_standby_feedback)",
                            "replay paused by a conflicting query running {n} minutes on the standby",
                            "a reporting query on the standby keeps replay waiting",
                            "WAL apply blocked behind a long read on the secondary"),
                    List.of(
                            "a long-running query on the replica blocked WAL replay",
                            "replay conflicts with a long report query delayed the standby"),
                    List.of(
                            "cancelled the reporting query and set max_standby_streaming_delay",
                            "terminated the blocking query on the standby"),
                    "cancel-replica-query"),
            new FailureClass(
                    "http-upstream-timeout",
                    "SERVICE",
                    List.of("HttpErrorsHigh", "Http5xxRateHigh", "HttpLatencyHigh"),
                    List.of(
                            "5xx error rate above {pct}%",
                            "Checkout returning 504 gateway timeouts",
                            "Error rate high on the API",
                            "Many requests fail with server errors",
                            "Users get timeouts when paying",
                            "A burst of failed calls at the edge"),
                    List.of(
                            "errors are timeouts calling the payment provider, p99 {n} s upstream",
                            "traces show the external payments API hanging, our service is healthy",
                            "the third-party upstream is slow; calls to it time out after {n} s",
                            "the external provider stopped answering in time"),
                    List.of(
                            "the external payment provider was slow and requests timed out",
                            "an upstream third-party API degraded"),
                    List.of(
                            "switched to the secondary payment provider and enabled the circuit breaker",
                            "failed over to the backup provider"),
                    "failover-provider"),
            new FailureClass(
                    "http-bad-release",
                    "SERVICE",
                    List.of("HttpErrorsHigh", "Http5xxRateHigh", "ErrorBudgetBurn"),
                    List.of(
                            "5xx error rate above {pct}% after deploy",
                            "API returning 500 internal errors",
                            "Error rate jumped",
                            "Many requests fail with server errors",
                            "Users see internal server errors since this morning",
                            "Error budget burning fast"),
                    List.of(
                            "errors began with release {n}; stack trace NullPointerException in the new handler",
                            "only the new version's instances return 500, the canary was skipped",
                            "exceptions thrown by code shipped in today's deploy",
                            "the latest build throws an unhandled exception on every request"),
                    List.of(
                            "a bug shipped in the new release threw exceptions",
                            "the deploy introduced a defect in a request handler"),
                    List.of("rolled back the release", "redeployed the previous version"),
                    "rollback-release"),
            new FailureClass(
                    "slow-query-index",
                    "SERVICE",
                    List.of("HttpLatencyHigh", "DatabaseSlowQueries", "SlowResponses"),
                    List.of(
                            "p99 latency above {n} ms",
                            "Search endpoint slow",
                            "Response times tripled",
                            "Database queries slow",
                            "Pages take seconds to load",
                            "The service answers slowly although traffic is normal"),
                    List.of(
                            "explain shows a sequential scan on orders after the migration dropped the index",
                            "the query plan changed to a full table scan of {n} million rows",
                            "an index disappeared in the last schema migration, queries scan the table",
                            "missing index since the migration, every lookup reads the whole table"),
                    List.of(
                            "a schema migration dropped an index and queries fell back to full scans",
                            "a missing index after a migration made queries slow"),
                    List.of("re-created the index concurrently", "added the missing index back"),
                    "create-index"),
            new FailureClass(
                    "queue-consumers",
                    "SERVICE",
                    List.of("QueueBacklogGrowing", "RabbitmqQueueMessagesHigh", "KafkaConsumerLagHigh"),
                    List.of(
                            "Queue has {n} messages waiting",
                            "Message backlog growing",
                            "Consumer lag increasing",
                            "Orders queue not draining",
                            "Work piles up in the broker faster than it is processed",
                            "Nobody seems to take jobs off the queue"),
                    List.of(
                            "zero consumers connected; the worker deployment crashed on a poison message",
                            "consumer count dropped to 0 after a malformed message made the workers exit",
                            "workers die on one bad message and the queue is not consumed",
                            "a poisonous payload kills every consumer that reads it"),
                    List.of(
                            "a poison message crashed every consumer",
                            "malformed message made workers exit, leaving the queue without consumers"),
                    List.of(
                            "moved the poison message to the dead-letter queue and restarted consumers",
                            "dead-lettered the bad message, restarted the workers"),
                    "restart-consumers"),
            new FailureClass(
                    "clock-skew",
                    "HOST",
                    List.of("HostClockSkew", "NodeClockNotSynchronising", "TokenValidationErrors"),
                    List.of(
                            "Clock offset {n} seconds",
                            "Host clock not synchronised",
                            "Time drift detected",
                            "Authentication failing, tokens not yet valid",
                            "The system time is wrong by seconds",
                            "Logins rejected because of time differences"),
                    List.of(
                            "chronyd is stopped; offset to the time servers is {n} s",
                            "ntp service disabled after the image rebuild, clock drifting",
                            "timedatectl shows System clock synchronized: no",
                            "the time daemon is not running and the clock wanders"),
                    List.of("the time synchronisation daemon was not running", "NTP was disabled so the clock drifted"),
                    List.of("started and enabled chronyd, stepped the clock", "re-enabled time sync"),
                    "restart-chrony"),
            new FailureClass(
                    "fd-exhaustion",
                    "HOST",
                    List.of("HostFileDescriptorsHigh", "TooManyOpenFiles", "HttpErrorsHigh"),
                    List.of(
                            "Open file descriptors at {pct}% of the limit",
                            "Too many open files errors",
                            "Process near its file descriptor limit",
                            "Accept failures: too many open files",
                            "The server cannot open new sockets or files",
                            "Descriptor table of the service almost full"),
                    List.of(
                            "the proxy holds {n} sockets in CLOSE_WAIT, connections to the backend never closed",
                            "lsof counts {n} leaked sockets, ulimit -n is 1024",
                            "descriptor count rises steadily: sockets are leaked and never closed",
                            "sockets accumulate in close wait until the limit is hit"),
                    List.of(
                            "leaked sockets (CLOSE_WAIT) exhausted the file descriptor limit",
                            "a connection leak used up the descriptors"),
                    List.of(
                            "restarted the proxy, raised the ulimit and fixed the connection leak",
                            "raised nofile and patched the leak"),
                    "restart-service"),
            new FailureClass(
                    "redis-evictions",
                    "SERVICE",
                    List.of("RedisMemoryHigh", "RedisEvictionsHigh", "CacheHitRateLow"),
                    List.of(
                            "Redis memory at {pct}% of maxmemory",
                            "Cache evicting keys",
                            "Cache hit rate dropped to {pct}%",
                            "Redis evicted {n} keys per second",
                            "The cache throws away entries as fast as they arrive",
                            "Cache misses everywhere, database load up"),
                    List.of(
                            "keys written without TTL by the new session feature fill maxmemory",
                            "{n} million keys with no expiry, eviction policy allkeys-lru evicting hot data",
                            "a feature stores entries with no expiration so memory never frees",
                            "entries never expire and crowd out the hot set"),
                    List.of(
                            "a new feature wrote keys without TTL and filled the cache",
                            "keys without expiry exhausted Redis maxmemory"),
                    List.of(
                            "added TTLs to the keys and raised maxmemory",
                            "expired the orphan keys and fixed the writer"),
                    "flush-keys"),
            new FailureClass(
                    "backup-failed",
                    "HOST",
                    List.of("BackupJobFailed", "CronJobFailed", "BackupTooOld"),
                    List.of(
                            "Nightly backup failed",
                            "Last successful backup older than {n} hours",
                            "Backup job exited with errors",
                            "No recent database dump",
                            "The scheduled dump did not complete",
                            "Backups have not succeeded lately"),
                    List.of(
                            "upload to object storage fails with AccessDenied: the backup credentials expired",
                            "the access key of the backup user was rotated, s3 put returns 403",
                            "backup script cannot authenticate to the bucket any more",
                            "storage upload denied, the key used by the job is no longer valid"),
                    List.of(
                            "the backup job's storage credentials expired",
                            "the rotated access key broke the backup upload"),
                    List.of(
                            "updated the backup credentials and reran the backup",
                            "issued a new access key for the job"),
                    "rerun-backup"));
}
