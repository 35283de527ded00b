package dev.cadre.platform.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Audits shared-memory writes made through the REST API (by API clients and console users) once
 * they succeeded; agents' own writes are in each entry's history instead. Run submissions are
 * audited where every entry point submits (the run service).
 */
class ClientWriteAuditFilter extends OncePerRequestFilter {

    private static final Pattern MEMORY_ENTRY = Pattern.compile("^/api/v1/memory/([^/]+)/([^/]+)$");

    private final SecurityAudit audit;

    ClientWriteAuditFilter(SecurityAudit audit) {
        this.audit = audit;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String m = request.getMethod();
        return !("PUT".equals(m) || "DELETE".equals(m))
                || !request.getRequestURI().startsWith("/api/v1/memory/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        chain.doFilter(request, response);
        Matcher m = MEMORY_ENTRY.matcher(request.getRequestURI());
        var auth = SecurityContextHolder.getContext().getAuthentication();
        if (m.matches()
                && response.getStatus() >= 200
                && response.getStatus() < 300
                && auth != null
                && auth.getPrincipal() instanceof CadrePrincipal p) {
            String etag = response.getHeader("ETag");
            audit.clientWrite(
                    p,
                    "PUT".equals(request.getMethod()) ? "memory.write" : "memory.delete",
                    m.group(1) + "/" + m.group(2),
                    etag == null ? null : "version " + etag.replace("\"", ""));
        }
    }
}
