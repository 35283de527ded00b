package dev.cadre.platform.security;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

interface ApiKeyRepository extends JpaRepository<ApiKeyEntity, String> {

    Optional<ApiKeyEntity> findByKeyHash(String keyHash);

    List<ApiKeyEntity> findAllByOrderByCreatedAtAsc();

    boolean existsByNameKey(String nameKey);

    Optional<ApiKeyEntity> findByNameKey(String nameKey);

    List<ApiKeyEntity> findByCreatedByAndRevokedAtIsNull(String createdBy);
}
