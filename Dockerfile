# syntax=docker/dockerfile:1.7
# Cadre platform image: build the Spring Boot fat jar with the Maven wrapper, unpack it into
# layers (dependencies change less often than the application), run it on a JRE as a non-root
# user. Build from the repository root:
#   docker build -t cadre/platform-api:0.1.0-SNAPSHOT .
# See docs/deploy.md.

ARG JAVA_VERSION=21

FROM eclipse-temurin:${JAVA_VERSION}-jdk-noble AS build
WORKDIR /src
# The Maven cache lives in a BuildKit cache mount, so rebuilds only download what changed.
COPY mvnw pom.xml ./
COPY .mvn/ .mvn/
COPY agent-core/ agent-core/
COPY memory/ memory/
COPY dashboard/ dashboard/
COPY platform-api/ platform-api/
# In the reactor (the try-it Kubernetes emulator): its pom only, never built into the image.
COPY k8s-emulator/pom.xml k8s-emulator/pom.xml
# spotless formats sources during process-sources; an image build must not rewrite anything.
RUN --mount=type=cache,target=/root/.m2 \
    ./mvnw -B -q -pl platform-api -am package -DskipTests -Dspotless.apply.skip=true \
 && cp platform-api/target/platform-api-0.1.0-SNAPSHOT.jar /tmp/cadre.jar \
 && java -Djarmode=tools -jar /tmp/cadre.jar extract --layers --launcher --destination /extracted

FROM eclipse-temurin:${JAVA_VERSION}-jre-noble AS runtime
LABEL org.opencontainers.image.title="cadre-platform-api" \
      org.opencontainers.image.description="Cadre multi-agent ops platform" \
      org.opencontainers.image.source="https://github.com/cadre/cadre"
# A fixed numeric uid/gid so Kubernetes' runAsNonRoot can verify it.
RUN groupadd --system --gid 10001 cadre \
 && useradd --system --uid 10001 --gid cadre --home-dir /opt/cadre --shell /usr/sbin/nologin cadre \
 && mkdir -p /opt/cadre/data /etc/cadre/agents \
 && chown cadre:cadre /opt/cadre/data
WORKDIR /opt/cadre
# Layer order: least to most frequently changed.
COPY --from=build /extracted/dependencies/ ./
COPY --from=build /extracted/spring-boot-loader/ ./
COPY --from=build /extracted/snapshot-dependencies/ ./
COPY --from=build /extracted/application/ ./
USER 10001:10001
ENV CADRE_PORT=8080 \
    JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp"
EXPOSE 8080
# /opt/cadre/data only matters for the embedded default (H2 file); production uses PostgreSQL.
VOLUME ["/opt/cadre/data"]
# curl ships in the eclipse-temurin Ubuntu images. Liveness only: readiness is for load balancers.
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD curl -fsS -o /dev/null "http://127.0.0.1:${CADRE_PORT}/actuator/health/liveness" || exit 1
ENTRYPOINT ["java", "org.springframework.boot.loader.launch.JarLauncher"]
