package dev.cadre.platform.web;

import java.util.List;
import org.springframework.boot.http.converter.autoconfigure.ServerHttpMessageConvertersCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * REST request bodies are read strictly: a field the request type does not have is a 400 naming it
 * ({@link ApiExceptionHandler}), never silently dropped — a client that misspells {@code arguments}
 * must not get a 200 that did something else. Only the server's JSON converter is strict: the
 * application's {@link JsonMapper} (stored records, peers' answers read by HTTP clients) keeps
 * tolerating new fields, and the A2A, MCP and Alertmanager endpoints read their bodies under their
 * own protocols' rules (extra fields are legal there).
 */
@Configuration(proxyBeanMethods = false)
class StrictRequestBodies {

    @Bean
    ServerHttpMessageConvertersCustomizer strictJsonRequestBodies(JsonMapper json) {
        JsonMapper strict = json.rebuild()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build();
        // Applied to the finished list, so it replaces the converter Boot registers whatever the
        // order the customizers run in.
        return builder -> builder.configureMessageConvertersList(converters -> replace(converters, strict));
    }

    private static void replace(List<HttpMessageConverter<?>> converters, JsonMapper strict) {
        converters.replaceAll(c -> c.getClass() == JacksonJsonHttpMessageConverter.class
                ? new JacksonJsonHttpMessageConverter(strict)
                : c);
    }
}
