package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.MockHttpSession;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextImpl;

/** A console session's absolute lifetime, on a clock the test moves (no waiting). */
class ConsoleSessionsTest {

    private final CadrePrincipal alice = new CadrePrincipal("alice", Role.OPERATOR, "key-1");

    private static final class MovableClock extends Clock {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");

        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @Test
    void aSessionEndsAfterItsAbsoluteLifetime_howeverActive() {
        MovableClock clock = new MovableClock();
        ApiKeyService keys = mock(ApiKeyService.class);
        when(keys.activeKey("key-1")).thenReturn(Optional.of(alice));
        ConsoleSessions sessions = new ConsoleSessions(keys, clock, Duration.ofHours(12), 5);

        MockHttpSession session = new MockHttpSession();
        MockHttpServletRequest login = new MockHttpServletRequest("POST", "/api/v1/session");
        login.setSession(session);
        var context = new SecurityContextImpl(new UsernamePasswordAuthenticationToken(
                alice, null, List.of(new SimpleGrantedAuthority(Role.OPERATOR.authority()))));
        sessions.saveContext(context, login, new MockHttpServletResponse());
        sessions.loggedIn(session, alice);

        clock.now = clock.now.plus(Duration.ofHours(11));
        assertThat(sessions.loadDeferredContext(request(session)).get().getAuthentication())
                .isNotNull();

        clock.now = clock.now.plus(Duration.ofHours(1));
        assertThat(sessions.loadDeferredContext(request(session)).get().getAuthentication())
                .isNull();
        assertThat(session.isInvalid()).isTrue();
    }

    @Test
    void aPersonsSession_endsWhenItsSignInSaysSo_withNoKeyToCheck() {
        MovableClock clock = new MovableClock();
        // A person signed in through the identity provider has no API key: none is ever active.
        ApiKeyService keys = mock(ApiKeyService.class);
        when(keys.activeKey("person-1")).thenReturn(Optional.empty());
        ConsoleSessions sessions = new ConsoleSessions(keys, clock, Duration.ofHours(12), 5);
        CadrePrincipal person = new CadrePrincipal("Alice Adams", Role.OPERATOR, "person-1");

        MockHttpSession session = new MockHttpSession();
        MockHttpServletRequest login = new MockHttpServletRequest("GET", "/sso/callback");
        login.setSession(session);
        sessions.saveContext(
                new SecurityContextImpl(new UsernamePasswordAuthenticationToken(
                        person, null, List.of(new SimpleGrantedAuthority(Role.OPERATOR.authority())))),
                login,
                new MockHttpServletResponse());
        sessions.loggedIn(session, person, clock.now.plus(Duration.ofHours(8)));

        clock.now = clock.now.plus(Duration.ofHours(8)).minusSeconds(1);
        assertThat(sessions.loadDeferredContext(request(session)).get().getAuthentication())
                .isNotNull();

        clock.now = clock.now.plusSeconds(1);
        assertThat(sessions.loadDeferredContext(request(session)).get().getAuthentication())
                .isNull();
        assertThat(session.isInvalid()).isTrue();
    }

    @Test
    void aSessionEndsWhenItsKeyIsNoLongerActive() {
        MovableClock clock = new MovableClock();
        ApiKeyService keys = mock(ApiKeyService.class);
        when(keys.activeKey("key-1")).thenReturn(Optional.empty());
        ConsoleSessions sessions = new ConsoleSessions(keys, clock, Duration.ofHours(12), 5);
        MockHttpSession session = new MockHttpSession();
        MockHttpServletRequest login = new MockHttpServletRequest("POST", "/api/v1/session");
        login.setSession(session);
        sessions.saveContext(
                new SecurityContextImpl(new UsernamePasswordAuthenticationToken(alice, null, List.of())),
                login,
                new MockHttpServletResponse());
        sessions.loggedIn(session, alice);

        assertThat(sessions.loadDeferredContext(request(session)).get().getAuthentication())
                .isNull();
        assertThat(session.isInvalid()).isTrue();
    }

    private static MockHttpServletRequest request(MockHttpSession session) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/v1/runs");
        request.setSession(session);
        return request;
    }
}
