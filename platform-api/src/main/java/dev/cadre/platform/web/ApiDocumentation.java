package dev.cadre.platform.web;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.servers.Server;
import io.swagger.v3.oas.models.tags.Tag;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.springdoc.core.customizers.GlobalOpenApiCustomizer;
import org.springdoc.core.customizers.GlobalOperationCustomizer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.info.BuildProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.HandlerMethod;

/**
 * Makes {@code /v3/api-docs} say what the server does, for every endpoint and without an
 * annotation on each: who may call (API key as bearer or {@code X-API-Key}, or a console session),
 * the problem-details errors every layer answers (security filters, the rate limit, the body-size
 * limit, validation, missing resources, storage outages), JSON instead of {@code *}/{@code *},
 * stable operation ids and tags by feature, and the build's version. An endpoint annotates only
 * what cannot be seen from its signature: a success status other than 200 set through a
 * {@code ResponseEntity}, an extra 4xx of its own, or {@code @SecurityRequirements()} when it is
 * public. {@code OpenApiContractTest} calls every operation and fails on any status or media type
 * the document does not declare.
 */
@Configuration(proxyBeanMethods = false)
class ApiDocumentation {

    static final String BEARER = "bearerApiKey";
    static final String API_KEY_HEADER = "headerApiKey";
    static final String SESSION = "consoleSession";

    private static final String PROBLEM = "ProblemDetail";
    private static final String PROBLEM_JSON = org.springframework.http.MediaType.APPLICATION_PROBLEM_JSON_VALUE;
    private static final String JSON = org.springframework.http.MediaType.APPLICATION_JSON_VALUE;
    private static final String EVENT_STREAM = org.springframework.http.MediaType.TEXT_EVENT_STREAM_VALUE;
    private static final Pattern CASE_INSENSITIVE_WORDS = Pattern.compile("\\(\\?i\\)[A-Za-z0-9_|-]+");

    /** The errors the platform's layers answer, each with the condition that makes it apply. */
    private enum Problem {
        BAD_REQUEST("400", "Bad request: a parameter, header or body field is invalid; the problem names it"),
        UNAUTHORIZED("401", "No credentials (where the operation needs them), or an unknown or revoked API key"),
        FORBIDDEN("403", "The caller's role does not allow this, or a console write lacks its CSRF token"),
        NOT_FOUND("404", "Nothing exists under this id or name"),
        NOT_ACCEPTABLE("406", "The Accept header allows none of the media types this operation answers with"),
        TOO_LARGE("413", "The request body exceeds cadre.http.max-body-bytes"),
        UNSUPPORTED_TYPE("415", "The request body is not JSON (Content-Type)"),
        RATE_LIMITED("429", "Rate limit of the caller's key reached; retry after Retry-After seconds"),
        INTERNAL("500", "Unexpected error; the problem carries an incident id to find in the server log"),
        UNAVAILABLE("503", "Storage unavailable for the moment; retry after Retry-After seconds");

        final String code;
        final String description;

        Problem(String code, String description) {
            this.code = code;
            this.description = description;
        }
    }

    @Bean
    OpenAPI cadreOpenApi(
            ObjectProvider<BuildProperties> build,
            @Value("${server.servlet.session.cookie.name:JSESSIONID}") String sessionCookie) {
        BuildProperties properties = build.getIfAvailable();
        String version =
                properties == null || properties.getVersion() == null ? "development" : properties.getVersion();
        return new OpenAPI()
                .info(new Info()
                        .title("Cadre platform API")
                        .version(version)
                        .description("Runs of agent teams, their events, traces and approvals, shared memory,"
                                + " agents, statistics, API keys and the audit log; the A2A JSON-RPC endpoint and"
                                + " the Alertmanager webhook. Errors are RFC 9457 problem details"
                                + " (application/problem+json)."))
                // Relative: the document describes the instance that serves it, whatever its address.
                .servers(List.of(new Server().url("/").description("this Cadre instance")))
                .components(new Components()
                        .addSecuritySchemes(
                                BEARER,
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.HTTP)
                                        .scheme("bearer")
                                        .description("An API key as 'Authorization: Bearer <key>'"))
                        .addSecuritySchemes(
                                API_KEY_HEADER,
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.APIKEY)
                                        .in(SecurityScheme.In.HEADER)
                                        .name("X-API-Key")
                                        .description("An API key in the X-API-Key header"))
                        .addSecuritySchemes(
                                SESSION,
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.APIKEY)
                                        .in(SecurityScheme.In.COOKIE)
                                        .name(sessionCookie)
                                        .description("The console's session (POST /api/v1/session); a write also"
                                                + " sends the XSRF-TOKEN cookie's value as X-XSRF-TOKEN")))
                .security(List.of(
                        new SecurityRequirement().addList(BEARER),
                        new SecurityRequirement().addList(API_KEY_HEADER),
                        new SecurityRequirement().addList(SESSION)));
    }

    /**
     * Per endpoint: tag by feature package, an operation id unique by construction (controller and
     * method: {@code runSubmit}, not {@code submit_1}, so generated clients keep their method
     * names), and a summary when the endpoint gives none.
     */
    @Bean
    GlobalOperationCustomizer cadreOperations() {
        return (operation, handler) -> {
            String noun = noun(handler);
            String method = handler.getMethod().getName();
            if (operation.getTags() == null || operation.getTags().stream().allMatch(t -> t.endsWith("-controller"))) {
                String pkg = handler.getBeanType().getPackageName();
                operation.setTags(List.of(pkg.substring(pkg.lastIndexOf('.') + 1)));
            }
            var annotated = handler.getMethodAnnotation(io.swagger.v3.oas.annotations.Operation.class);
            if (annotated == null || annotated.operationId().isBlank()) {
                operation.setOperationId(
                        Character.toLowerCase(noun.charAt(0)) + noun.substring(1) + capitalize(method));
            }
            if (operation.getSummary() == null || operation.getSummary().isBlank()) {
                operation.setSummary(capitalize(words(method)) + " (" + words(noun) + ")");
            }
            // springdoc copies the method's return type into an annotated error response that names
            // no content; an error of Cadre's is a problem.
            for (var declared : handler.getMethod()
                    .getAnnotationsByType(io.swagger.v3.oas.annotations.responses.ApiResponse.class)) {
                ApiResponse response = operation.getResponses() == null
                        ? null
                        : operation.getResponses().get(declared.responseCode());
                if (response != null && declared.content().length == 0 && isError(declared.responseCode())) {
                    response.setContent(problemContent());
                }
            }
            return operation;
        };
    }

    /** The whole document: errors, media types, security of public endpoints, schemas, tags. */
    @Bean
    GlobalOpenApiCustomizer cadreContract(@Value("${server.error.path:/error}") String errorPath) {
        Properties descriptions = operationDescriptions();
        return openApi -> {
            if (openApi.getPaths() != null) {
                // The container's error dispatch is no endpoint a client calls.
                openApi.getPaths().remove(errorPath);
            }
            Components components = openApi.getComponents() == null ? new Components() : openApi.getComponents();
            openApi.setComponents(components);
            components.addSchemas(PROBLEM, problemSchema());
            rateLimitHeaders(components);
            if (components.getSchemas().containsKey("JsonNode")) {
                components.addSchemas("JsonNode", new Schema<>().description("Any JSON value"));
            }
            components.getSchemas().remove("SseEmitter");
            components.getSchemas().values().forEach(ApiDocumentation::portablePatterns);
            TreeSet<String> tags = new TreeSet<>();
            if (openApi.getPaths() != null) {
                openApi.getPaths().forEach((path, item) -> {
                    for (Map.Entry<PathItem.HttpMethod, Operation> e :
                            item.readOperationsMap().entrySet()) {
                        describe(path, e.getKey(), e.getValue());
                        Operation op = e.getValue();
                        if ((op.getDescription() == null || op.getDescription().isBlank())
                                && op.getOperationId() != null) {
                            op.setDescription(descriptions.getProperty(op.getOperationId()));
                        }
                        if (e.getValue().getTags() != null) {
                            tags.addAll(e.getValue().getTags());
                        }
                    }
                });
            }
            List<Tag> declared = new ArrayList<>(openApi.getTags() == null ? List.of() : openApi.getTags());
            for (String tag : tags) {
                if (declared.stream().noneMatch(t -> t.getName().equals(tag))) {
                    declared.add(new Tag().name(tag).description("Endpoints of the " + tag + " feature"));
                }
            }
            openApi.setTags(declared);
        };
    }

    /** Operation descriptions by operation id, kept in one file rather than spread over the controllers. */
    private static Properties operationDescriptions() {
        Properties descriptions = new Properties();
        try (var in = ApiDocumentation.class.getResourceAsStream("/openapi/descriptions.properties")) {
            if (in != null) {
                descriptions.load(new java.io.InputStreamReader(in, java.nio.charset.StandardCharsets.UTF_8));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot read openapi/descriptions.properties", e);
        }
        return descriptions;
    }

    private static void describe(String path, PathItem.HttpMethod method, Operation op) {
        ApiResponses responses = op.getResponses() == null ? new ApiResponses() : op.getResponses();
        op.setResponses(responses);
        boolean secured = op.getSecurity() == null || !op.getSecurity().isEmpty();
        boolean hasInput = (op.getParameters() != null && !op.getParameters().isEmpty()) || op.getRequestBody() != null;
        Map<Problem, Boolean> applies = new LinkedHashMap<>();
        applies.put(Problem.BAD_REQUEST, hasInput);
        // A key that is sent is checked even where none is needed.
        applies.put(Problem.UNAUTHORIZED, true);
        // A role check for every secured call; CSRF for every write a console session may make.
        applies.put(Problem.FORBIDDEN, secured || method != PathItem.HttpMethod.GET);
        applies.put(Problem.NOT_FOUND, path.contains("{"));
        applies.put(
                Problem.NOT_ACCEPTABLE,
                responses.entrySet().stream()
                        .anyMatch(e -> e.getKey().startsWith("2")
                                && e.getValue().getContent() != null
                                && !e.getValue().getContent().isEmpty()));
        applies.put(Problem.TOO_LARGE, op.getRequestBody() != null);
        applies.put(Problem.UNSUPPORTED_TYPE, op.getRequestBody() != null);
        applies.put(Problem.RATE_LIMITED, secured);
        applies.put(Problem.INTERNAL, true);
        applies.put(Problem.UNAVAILABLE, true);
        applies.forEach((problem, applicable) -> {
            if (applicable && !responses.containsKey(problem.code)) {
                responses.addApiResponse(problem.code, new ApiResponse().description(problem.description));
            }
        });
        responses.forEach((code, response) -> {
            Content content = response.getContent();
            if (content != null) {
                // Spring MVC writes these handlers' bodies as JSON: say so, not "*/*".
                MediaType any = content.remove("*/*");
                if (any != null && !content.containsKey(JSON)) {
                    content.addMediaType(JSON, any);
                }
                MediaType stream = content.get(EVENT_STREAM);
                if (stream != null) {
                    stream.setSchema(new StringSchema()
                            .description("Server-sent events: 'id:', 'event:' and 'data:' lines, data as JSON"));
                }
            }
            if (code.equals("204") || code.equals("304")) {
                response.setContent(null); // no body, whatever the handler's return type
            } else if (isError(code) && (content == null || content.isEmpty())) {
                response.setContent(problemContent());
            }
        });
        if (secured) {
            rateLimited(responses);
        }
        // By status code, so a reader finds 404 after 400 whatever declared it.
        var sorted = new java.util.TreeMap<>(responses);
        responses.clear();
        responses.putAll(sorted);
    }

    private static final String LIMIT_HEADER = "X-RateLimit-Limit";
    private static final String REMAINING_HEADER = "X-RateLimit-Remaining";
    private static final String RETRY_AFTER = "Retry-After";

    /** The headers of the per-key rate limiter (RateLimitFilter), declared once and referenced. */
    private static void rateLimitHeaders(Components components) {
        String when = " Sent when cadre.security.rate-limit.requests-per-second is above 0 and the request"
                + " carried a valid key.";
        components.addHeaders(
                LIMIT_HEADER,
                new Header()
                        .description("How many requests the key may make at once (the limiter's burst)." + when)
                        .schema(new IntegerSchema().minimum(java.math.BigDecimal.ONE)));
        components.addHeaders(
                REMAINING_HEADER,
                new Header()
                        .description("How many requests the key may still make at once; 0 when refused." + when)
                        .schema(new IntegerSchema().minimum(java.math.BigDecimal.ZERO)));
        components.addHeaders(
                RETRY_AFTER,
                new Header()
                        .description("Seconds to wait before the key may make a request again")
                        .schema(new IntegerSchema().minimum(java.math.BigDecimal.ONE)));
    }

    /**
     * The limiter runs right after the key is authenticated, so every 2xx and 4xx answer to a
     * secured operation carries its headers — but a 401, which has no key to count against.
     */
    private static void rateLimited(ApiResponses responses) {
        responses.forEach((code, response) -> {
            if ((code.startsWith("2") || code.startsWith("4")) && !code.equals("401")) {
                response.addHeaderObject(LIMIT_HEADER, new Header().$ref("#/components/headers/" + LIMIT_HEADER));
                response.addHeaderObject(
                        REMAINING_HEADER, new Header().$ref("#/components/headers/" + REMAINING_HEADER));
            }
            if (code.equals(Problem.RATE_LIMITED.code)) {
                response.addHeaderObject(RETRY_AFTER, new Header().$ref("#/components/headers/" + RETRY_AFTER));
            }
        });
    }

    private static Content problemContent() {
        return new Content()
                .addMediaType(
                        PROBLEM_JSON, new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM)));
    }

    private static boolean isError(String code) {
        return code.startsWith("4") || code.startsWith("5");
    }

    /** RFC 9457 problem details; extension members (field, parameter, incident, …) as additional properties. */
    private static Schema<?> problemSchema() {
        return new ObjectSchema()
                .description("RFC 9457 problem details; extension members such as 'field', 'parameter' or"
                        + " 'incident' name what went wrong")
                .addProperty(
                        "type", new StringSchema().format("uri-reference").example("urn:cadre:problem:invalid-field"))
                .addProperty("title", new StringSchema())
                .addProperty("status", new IntegerSchema().format("int32"))
                .addProperty("detail", new StringSchema())
                .addProperty("instance", new StringSchema().format("uri-reference"))
                .additionalProperties(true);
    }

    /**
     * Bean Validation's {@code (?i)a|b} is no ECMA-262 regular expression (what JSON Schema
     * speaks); spell the case-insensitivity out as {@code [aA]|[bB]}.
     */
    @SuppressWarnings("rawtypes")
    private static void portablePatterns(Schema<?> schema) {
        if (schema.getPattern() != null
                && CASE_INSENSITIVE_WORDS.matcher(schema.getPattern()).matches()) {
            StringBuilder out = new StringBuilder("^(?:");
            for (char c : schema.getPattern().substring(4).toCharArray()) {
                if (Character.isLetter(c)) {
                    out.append('[')
                            .append(Character.toLowerCase(c))
                            .append(Character.toUpperCase(c))
                            .append(']');
                } else {
                    out.append(c);
                }
            }
            schema.setPattern(out.append(")$").toString());
            if (schema.getMaxLength() == null) {
                // The words are all a value may be: the longest one is the length the check allows.
                int longest = 0;
                for (String word :
                        schema.getPattern().replaceAll("\\[(.).\\]", "$1").split("[^A-Za-z0-9_-]+")) {
                    longest = Math.max(longest, word.length());
                }
                schema.setMaxLength(longest);
            }
        }
        if (schema.getProperties() != null) {
            for (Schema property : schema.getProperties().values()) {
                portablePatterns(property);
            }
        }
    }

    private static String noun(HandlerMethod handler) {
        String name = handler.getBeanType().getSimpleName();
        return name.endsWith("Controller") ? name.substring(0, name.length() - "Controller".length()) : name;
    }

    private static String words(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT);
    }

    private static String capitalize(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
