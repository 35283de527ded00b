package dev.cadre.platform.security;

import dev.cadre.platform.web.ProblemWriter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.security.access.hierarchicalroles.RoleHierarchy;
import org.springframework.security.access.hierarchicalroles.RoleHierarchyImpl;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.context.SecurityContextHolderFilter;
import org.springframework.security.web.csrf.CookieCsrfTokenRepository;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.security.web.csrf.CsrfTokenRepository;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.security.web.header.writers.ReferrerPolicyHeaderWriter.ReferrerPolicy;

/**
 * Every endpoint but health (and the console's static shell, login and the public A2A Agent Card)
 * needs an API key or a console session; viewers read, operators act, admins manage keys.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebSecurity
class SecurityConfiguration {

    static final String VIEWER = "VIEWER";
    static final String OPERATOR = "OPERATOR";
    static final String ADMIN = "ADMIN";

    static final String INTAKE = "INTAKE";
    static final String AGENT = "AGENT";
    /** Spans all teams: manages teams, reads every team's audit log (an authority beside the role). */
    static final String PLATFORM_ADMIN = "PLATFORM_ADMIN";

    /**
     * The console's policy: everything from this origin, no inline script or style (the console has
     * none), no framing, no plugins, forms and links only back here.
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self';"
            + " img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none';"
            + " form-action 'self'; frame-ancestors 'none'";

    @Bean
    RoleHierarchy roleHierarchy() {
        return RoleHierarchyImpl.withDefaultRolePrefix()
                .role(ADMIN)
                .implies(OPERATOR)
                .role(OPERATOR)
                .implies(VIEWER, INTAKE, AGENT)
                .build();
    }

    @Bean
    SecurityFilterChain api(
            HttpSecurity http,
            ApiKeyService keys,
            ProblemWriter problems,
            ConsoleSessions sessions,
            SecurityAudit audit,
            Clock clock,
            List<SignInMethod> signInMethods,
            dev.cadre.platform.tenancy.TeamStore teams,
            @Value("${cadre.security.rate-limit.requests-per-second:0}") double ratePerSecond,
            @Value("${cadre.security.rate-limit.burst:100}") int rateBurst)
            throws Exception {
        var keyFilter = new ApiKeyAuthenticationFilter(keys, problems, audit);
        var rateLimit = new RateLimitFilter(problems, clock, ratePerSecond, rateBurst);
        // A sign-in method's bearer filter runs after the context is loaded and before the key
        // filter, which then leaves a request it authenticated alone.
        Class<? extends Filter> beforeKeys = SecurityContextHolderFilter.class;
        for (SignInMethod method : signInMethods) {
            method.configure(http);
            Filter bearer = method.bearerFilter();
            if (bearer != null) {
                http.addFilterAfter(bearer, beforeKeys);
                beforeKeys = bearer.getClass();
            }
        }
        http.addFilterAfter(keyFilter, beforeKeys)
                .addFilterAfter(rateLimit, ApiKeyAuthenticationFilter.class)
                .addFilterAfter(new ClientWriteAuditFilter(audit), RateLimitFilter.class)
                .addFilterAfter(new TeamSelectionFilter(teams, problems), ClientWriteAuditFilter.class)
                // Key requests neither read nor write a session (ConsoleSessions): stateless.
                .securityContext(c -> c.securityContextRepository(sessions))
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.IF_REQUIRED))
                // Console sessions are cookie-based and need CSRF protection; API-key calls carry no
                // ambient credential, so they are exempt. Login is not: a forged login would sign the
                // victim's browser in as the attacker (login CSRF).
                .csrf(c -> c.spa()
                        .csrfTokenRepository(csrfCookies())
                        .ignoringRequestMatchers(ApiKeyAuthenticationFilter::carriesApiKey)
                        // Without a session cookie there is no ambient credential to forge: let such
                        // requests reach authentication and get a clear 401.
                        .ignoringRequestMatchers(
                                request -> request.getRequestedSessionId() == null && !isLogin(request)))
                .headers(h -> h.contentSecurityPolicy(csp -> csp.policyDirectives(CONTENT_SECURITY_POLICY))
                        .referrerPolicy(r -> r.policy(ReferrerPolicy.NO_REFERRER))
                        .frameOptions(f -> f.deny()))
                .httpBasic(b -> b.disable())
                .formLogin(f -> f.disable())
                .logout(l -> l.disable())
                .requestCache(r -> r.disable())
                .exceptionHandling(e -> e.authenticationEntryPoint((request, response, ex) -> {
                            response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"cadre\"");
                            problems.write(
                                    response,
                                    HttpStatus.UNAUTHORIZED,
                                    "unauthenticated",
                                    "Authentication required",
                                    "send an API key as 'Authorization: Bearer <key>' or 'X-API-Key', or log in to the console");
                        })
                        .accessDeniedHandler((request, response, ex) -> {
                            boolean csrf =
                                    ex.getMessage() != null && ex.getMessage().contains("CSRF");
                            String detail = csrf
                                    ? "missing or stale CSRF token: send the XSRF-TOKEN cookie's value as X-XSRF-TOKEN"
                                    : "your role does not allow " + request.getMethod() + " " + request.getRequestURI();
                            var auth = org.springframework.security.core.context.SecurityContextHolder.getContext()
                                    .getAuthentication();
                            audit.refused(
                                    request,
                                    auth != null && auth.getPrincipal() instanceof CadrePrincipal p ? p : null,
                                    csrf,
                                    csrf ? "missing or stale CSRF token" : "role does not allow it");
                            problems.write(response, HttpStatus.FORBIDDEN, "forbidden", "Forbidden", detail);
                        }))
                .authorizeHttpRequests(a -> a
                        // The re-dispatch that completes an event stream belongs to a request that was
                        // authorised when it began; a key request keeps no session to re-authenticate
                        // it from, so it must not be denied (and fail a committed stream) here.
                        .dispatcherTypeMatchers(DispatcherType.ASYNC)
                        .permitAll()
                        .requestMatchers("/actuator/health", "/actuator/health/**")
                        .permitAll()
                        .requestMatchers(
                                HttpMethod.GET, "/", "/index.html", "/favicon.ico", "/console/**", "/webjars/**")
                        .permitAll()
                        .requestMatchers(HttpMethod.GET, "/.well-known/agent-card.json")
                        .permitAll()
                        .requestMatchers("/api/v1/session")
                        .permitAll()
                        // Whether single sign-on is offered (the sign-in page asks before anyone is in).
                        .requestMatchers(HttpMethod.GET, "/api/v1/session/sso")
                        .permitAll()
                        // A person's team switch: any signed-in role, viewers too.
                        .requestMatchers("/api/v1/session/team")
                        .authenticated()
                        .requestMatchers("/error")
                        .permitAll()
                        // The audit log names every team's objects: until it is kept per team, it is
                        // read by platform admins only.
                        .requestMatchers("/api/v1/audit", "/api/v1/audit/**")
                        .hasRole(PLATFORM_ADMIN)
                        .requestMatchers("/api/v1/keys", "/api/v1/keys/**")
                        .hasRole(ADMIN)
                        // Teams are created by platform admins; anyone reads the teams it may act in.
                        .requestMatchers(HttpMethod.GET, "/api/v1/teams", "/api/v1/teams/**")
                        .hasRole(VIEWER)
                        .requestMatchers("/api/v1/teams", "/api/v1/teams/**")
                        .hasRole(PLATFORM_ADMIN)
                        // The integration roles: each reaches its one door and nothing else.
                        .requestMatchers(HttpMethod.POST, "/api/v1/integrations/alertmanager")
                        .hasRole(INTAKE)
                        .requestMatchers("/a2a", "/a2a/**")
                        .hasRole(AGENT)
                        // MCP clients: viewers list the tools, agent keys (and operators) call them (McpAgentTools).
                        .requestMatchers("/mcp", "/mcp/**")
                        .hasAnyRole(VIEWER, AGENT)
                        .requestMatchers(HttpMethod.GET, "/api/v1/**")
                        .hasRole(VIEWER)
                        .requestMatchers("/api/v1/**")
                        .hasRole(OPERATOR)
                        .anyRequest()
                        .hasRole(VIEWER));
        return http.build();
    }

    private static boolean isLogin(HttpServletRequest request) {
        return "POST".equals(request.getMethod()) && "/api/v1/session".equals(request.getServletPath());
    }

    /**
     * The CSRF cookie: readable by the console's script (that is the pattern), never sent
     * cross-site, and never set on a key-authenticated response (stateless: no Set-Cookie at all).
     */
    private static CsrfTokenRepository csrfCookies() {
        CookieCsrfTokenRepository cookies = CookieCsrfTokenRepository.withHttpOnlyFalse();
        cookies.setCookieCustomizer(c -> c.sameSite("Strict"));
        return new CsrfTokenRepository() {
            @Override
            public CsrfToken generateToken(HttpServletRequest request) {
                return cookies.generateToken(request);
            }

            @Override
            public void saveToken(CsrfToken token, HttpServletRequest request, HttpServletResponse response) {
                if (!ApiKeyAuthenticationFilter.carriesApiKey(request)) {
                    cookies.saveToken(token, request, response);
                }
            }

            @Override
            public CsrfToken loadToken(HttpServletRequest request) {
                return cookies.loadToken(request);
            }
        };
    }

    /**
     * The firewall's refusals (';' or an encoded '%', '.' or '/' in the path, control characters
     * in a header, an unknown method) say what was refused, as problem details. Header values are
     * left out of the detail: one may be a credential.
     */
    @Bean
    RequestRejectedHandler requestRejectedHandler(ProblemWriter problems) {
        return (request, response, e) -> problems.write(
                response,
                HttpStatus.BAD_REQUEST,
                "request-rejected",
                "Request rejected",
                String.valueOf(e.getMessage()).replaceAll("has a value \".*\" that", "has a value that"));
    }

    @Bean
    ApplicationRunner bootstrapAdminKey(
            ApiKeyService keys, @Value("${cadre.security.bootstrap-api-key:}") String bootstrapKey) {
        return args -> keys.bootstrap(bootstrapKey);
    }
}
