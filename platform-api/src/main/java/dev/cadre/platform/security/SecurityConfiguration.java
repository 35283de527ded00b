package dev.cadre.platform.security;

import dev.cadre.platform.web.ProblemWriter;
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
import org.springframework.security.web.context.HttpSessionSecurityContextRepository;
import org.springframework.security.web.context.SecurityContextHolderFilter;
import org.springframework.security.web.context.SecurityContextRepository;
import org.springframework.security.web.firewall.RequestRejectedHandler;

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

    @Bean
    RoleHierarchy roleHierarchy() {
        return RoleHierarchyImpl.withDefaultRolePrefix()
                .role(ADMIN)
                .implies(OPERATOR)
                .role(OPERATOR)
                .implies(VIEWER)
                .build();
    }

    @Bean
    SecurityContextRepository securityContextRepository() {
        return new HttpSessionSecurityContextRepository();
    }

    @Bean
    SecurityFilterChain api(
            HttpSecurity http, ApiKeyService keys, ProblemWriter problems, SecurityContextRepository contexts)
            throws Exception {
        http.addFilterAfter(new ApiKeyAuthenticationFilter(keys, problems), SecurityContextHolderFilter.class)
                .securityContext(c -> c.securityContextRepository(contexts))
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.IF_REQUIRED))
                // Console sessions are cookie-based and need CSRF protection; API-key calls carry no
                // ambient credential, so they are exempt.
                .csrf(c -> c.spa()
                        .ignoringRequestMatchers(ApiKeyAuthenticationFilter::carriesApiKey)
                        // Without a session cookie there is no ambient credential to forge: let such
                        // requests reach authentication and get a clear 401.
                        .ignoringRequestMatchers(request -> request.getRequestedSessionId() == null)
                        .ignoringRequestMatchers(request -> "POST".equals(request.getMethod())
                                && "/api/v1/session".equals(request.getServletPath())))
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
                        .accessDeniedHandler((request, response, ex) -> problems.write(
                                response,
                                HttpStatus.FORBIDDEN,
                                "forbidden",
                                "Forbidden",
                                ex.getMessage() != null && ex.getMessage().contains("CSRF")
                                        ? "missing or stale CSRF token: send the XSRF-TOKEN cookie's value as X-XSRF-TOKEN"
                                        : "your role does not allow " + request.getMethod() + " "
                                                + request.getRequestURI())))
                .authorizeHttpRequests(a -> a.requestMatchers("/actuator/health", "/actuator/health/**")
                        .permitAll()
                        .requestMatchers(
                                HttpMethod.GET, "/", "/index.html", "/favicon.ico", "/console/**", "/webjars/**")
                        .permitAll()
                        .requestMatchers(HttpMethod.GET, "/.well-known/agent-card.json")
                        .permitAll()
                        .requestMatchers("/api/v1/session")
                        .permitAll()
                        .requestMatchers("/error")
                        .permitAll()
                        .requestMatchers("/api/v1/keys", "/api/v1/keys/**", "/api/v1/audit", "/api/v1/audit/**")
                        .hasRole(ADMIN)
                        .requestMatchers(HttpMethod.GET, "/api/v1/**")
                        .hasRole(VIEWER)
                        .requestMatchers("/api/v1/**", "/a2a", "/a2a/**")
                        .hasRole(OPERATOR)
                        .anyRequest()
                        .hasRole(VIEWER));
        return http.build();
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
