package dev.cadre.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Name;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code docs/configuration.md} is the full reference: every {@code cadre.*} property the platform
 * binds — fields of {@code @ConfigurationProperties} records (at any depth), {@code @Value}
 * placeholders, keys of {@code application.yaml} — is named there. A new property cannot ship
 * undocumented: the test names the missing ones.
 */
class ConfigurationReferenceTest {

    private static final Pattern VALUE = Pattern.compile("\\$\\{(cadre\\.[a-z0-9.-]+[a-z0-9])");

    @Test
    void everyCadrePropertyIsDocumentedInTheConfigurationReference() throws Exception {
        Set<String> properties = new TreeSet<>();
        properties.addAll(boundByConfigurationProperties());
        properties.addAll(placeholders(Path.of("src/main/java")));
        properties.addAll(yamlKeys(Path.of("src/main/resources/application.yaml")));
        String reference = Files.readString(Path.of("../docs/configuration.md"));

        List<Pattern> documented = documented(reference);

        assertThat(properties).as("properties found").hasSizeGreaterThan(40);
        assertThat(properties.stream()
                        // A map or list is documented by its entries' rows (cadre.models.prices.<model>...).
                        .filter(p -> !reference.contains("`" + p + ".")
                                && documented.stream()
                                        .noneMatch(d -> d.matcher(p).matches())))
                .as("cadre.* properties missing from docs/configuration.md")
                .isEmpty();
    }

    /**
     * The properties the reference names in code spans: exactly, as a prefix of a map or list
     * ({@code cadre.models.prices}), or with placeholders ({@code cadre.models.<provider>.timeout}).
     */
    private static List<Pattern> documented(String reference) {
        List<Pattern> out = new java.util.ArrayList<>();
        Matcher m = Pattern.compile("`(cadre\\.[^`\\s]+)`").matcher(reference);
        while (m.find()) {
            StringBuilder regex = new StringBuilder();
            for (String part : m.group(1).split("(?=<)|(?<=>)")) {
                regex.append(part.startsWith("<") && part.endsWith(">") ? "[^.]+(\\.[^.]+)?" : Pattern.quote(part));
            }
            out.add(Pattern.compile(regex + "(\\..+)?"));
        }
        return out;
    }

    private static Set<String> boundByConfigurationProperties() throws ClassNotFoundException {
        Set<String> out = new TreeSet<>();
        var scanner = new ClassPathScanningCandidateComponentProvider(false) {
            @Override
            protected boolean isCandidateComponent(
                    org.springframework.beans.factory.annotation.AnnotatedBeanDefinition definition) {
                return true;
            }
        };
        scanner.addIncludeFilter((reader, factory) -> true);
        for (BeanDefinition candidate : scanner.findCandidateComponents("dev.cadre.platform")) {
            Class<?> type = Class.forName(candidate.getBeanClassName());
            ConfigurationProperties onType = type.getAnnotation(ConfigurationProperties.class);
            if (onType != null) {
                walk(prefixOf(onType), type, out, 0);
            }
            for (Method m : type.getDeclaredMethods()) {
                ConfigurationProperties onMethod = m.getAnnotation(ConfigurationProperties.class);
                if (onMethod != null) {
                    walk(prefixOf(onMethod), m.getReturnType(), out, 0);
                }
            }
        }
        return out;
    }

    private static String prefixOf(ConfigurationProperties a) {
        return a.prefix().isEmpty() ? a.value() : a.prefix();
    }

    /** The leaf properties under {@code prefix}; maps and lists count as their prefix. */
    private static void walk(String prefix, Class<?> type, Set<String> out, int depth) {
        if (!type.isRecord() || depth > 6) {
            out.add(prefix);
            return;
        }
        RecordComponent[] components = type.getRecordComponents();
        Parameter[] parameters = canonical(type, components).getParameters();
        for (int i = 0; i < components.length; i++) {
            Name renamed = parameters[i].getAnnotation(Name.class);
            String name = renamed != null ? renamed.value() : kebab(components[i].getName());
            Class<?> t = components[i].getType();
            if (Map.class.isAssignableFrom(t)
                    || Collection.class.isAssignableFrom(t)
                    || t.isArray()
                    || t == Optional.class) {
                out.add(prefix + "." + name);
            } else {
                walk(prefix + "." + name, t, out, depth + 1);
            }
        }
    }

    private static Constructor<?> canonical(Class<?> record, RecordComponent[] components) {
        try {
            return record.getDeclaredConstructor(
                    Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new));
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    private static Set<String> placeholders(Path sources) throws IOException {
        Set<String> out = new TreeSet<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = VALUE.matcher(Files.readString(f));
                while (m.find()) {
                    out.add(m.group(1));
                }
            }
        }
        return out;
    }

    private static Set<String> yamlKeys(Path yaml) throws IOException {
        Set<String> out = new TreeSet<>();
        Map<String, Object> root = new Yaml().load(Files.readString(yaml));
        flatten("", root, out);
        out.removeIf(k -> !k.startsWith("cadre."));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void flatten(String prefix, Object node, Set<String> out) {
        if (node instanceof Map<?, ?> map) {
            for (var e : ((Map<String, Object>) map).entrySet()) {
                flatten(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), out);
            }
        } else {
            out.add(prefix);
        }
    }
}
